import numpy as np


def softmax(a):
    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def masked_attention(Q, K, V, mask=None):
    """mask: float 0/1, 1 = keep, 0 = ignore. Broadcastable to (T_q, T_k)."""
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask, dtype=scores.dtype)
        # keep -> +0, ignore -> a huge negative number before the softmax
        scores = scores + (1.0 - mask) * -1e9
    weights = softmax(scores)
    return weights @ V
