"""A boolean keep mask (True = attend), and [output, weights] returned as a list."""

import numpy as np


def attention(Q, K, V, mask=None):
    s = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return [w @ V, w]
