import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    """mask is additive: 0 where allowed, -inf where blocked."""
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores - mask
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v
