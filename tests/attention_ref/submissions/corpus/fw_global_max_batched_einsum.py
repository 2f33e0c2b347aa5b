import numpy as np


def attention(q, k, v):
    """q, k, v: (batch, seq, dim)."""
    logits = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    logits = logits - logits.max()  # keep exp in range
    w = np.exp(logits)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.einsum("bqk,bkd->bqd", w, v)
