import numpy as np


def softmax(a):
    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def masked_attention(Q, K, V, mask=None):
    """mask: float array of 0/1, 1 = keep, 0 = ignore (same shape as the scores)."""
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        # zero out the positions we are not allowed to look at
        scores = scores * mask
    weights = softmax(scores)
    return weights @ V
