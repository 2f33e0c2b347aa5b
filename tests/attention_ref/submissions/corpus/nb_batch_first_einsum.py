import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(q, k, v):
    """Batch-first: q (B, T_q, d), k (B, T_k, d), v (B, T_k, d_v)."""
    s = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    return np.einsum("bqk,bkv->bqv", softmax(s), v)
