import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def attention(q, k, v):
    """flash-attn layout: q (batch, seqlen_q, nheads, headdim), k and v (batch, seqlen_k, nheads, headdim).

    Returns (batch, seqlen_q, nheads, headdim).
    """
    scale = q.shape[-1] ** -0.5
    s = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
    p = softmax(s, axis=-1)
    return np.einsum("bhqk,bkhd->bqhd", p, v)
