"""Takes an optional additive mask and returns {"out": output}: still not an array."""

import numpy as np


def attention(Q, K, V, mask=None):
    s = Q @ K.T / np.sqrt(K.shape[-1])
    if mask is not None:
        s = s + mask
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return {"out": w @ V}
