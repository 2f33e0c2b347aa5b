import numpy as np


def attention(Q, K, V, mask=None):
    """mask: True (or 1) marks a key the query must NOT see."""
    s = Q @ K.T / np.sqrt(K.shape[1])
    if mask is not None:
        s = np.ma.masked_array(s, mask=np.asarray(mask, dtype=bool))
    s = s - s.max(axis=1, keepdims=True)
    e = np.ma.exp(s)
    w = e / e.sum(axis=1, keepdims=True)
    w = np.ma.filled(w, 0.0)
    return w @ V
