import numpy as np


def attention(q, k, v):
    """(batch, heads, seq, dim) in and out."""
    b, h, n, d = q.shape
    dots = np.einsum("bhid,bhjd->bhij", q, k) * (d ** -0.5)
    dots = dots - dots.max(axis=2, keepdims=True)
    attn = np.exp(dots)
    attn = attn / attn.sum(axis=2, keepdims=True)  # normalise over i
    return np.einsum("bhij,bhjd->bhid", attn, v)
