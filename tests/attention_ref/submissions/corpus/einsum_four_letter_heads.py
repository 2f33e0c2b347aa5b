import numpy as np


def attention(q, k, v):
    """q, k, v: (batch, heads, seq, head_dim)."""
    scale = 1.0 / np.sqrt(q.shape[-1])
    logits = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    logits -= logits.max(-1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", probs, v)
