import numpy as np


def attention(Q, K, V, mask=0.0):
    """mask is added to the scores: 0 where allowed, -inf (or -1e9) where not."""
    s = Q @ K.T / np.sqrt(Q.shape[-1]) + mask
    s -= s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return w / w.sum(axis=-1, keepdims=True) @ V
