import numpy as np


def scaled_dot_product(q, k, v):
    """q, k, v: (batch, heads, seq, head_dim)."""
    b, h, t, d = q.shape
    logits = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)  # (b, h, t_q, t_k)
    logits = logits - logits.max(axis=2, keepdims=True)
    attn = np.exp(logits)
    attn = attn / attn.sum(axis=2, keepdims=True)
    return attn @ v
