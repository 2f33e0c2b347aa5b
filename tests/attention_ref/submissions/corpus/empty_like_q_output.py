import numpy as np


def attention(Q, K, V):
    out = np.empty_like(Q)
    scale = np.sqrt(Q.shape[1])
    for i, q in enumerate(Q):
        s = K @ q / scale
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ V
    return out
