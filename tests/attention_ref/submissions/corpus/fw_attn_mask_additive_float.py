import numpy as np


def scaled_dot_product_attention(q, k, v, attn_mask=None):
    """attn_mask: float, added to the scores (0 = keep, -inf = drop), broadcastable to (T_q, T_k)."""
    scores = q @ k.T
    scores *= q.shape[-1] ** -0.5
    if attn_mask is not None:
        scores = scores + attn_mask
    m = np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores - m)
    return (e / e.sum(axis=-1, keepdims=True)) @ v
