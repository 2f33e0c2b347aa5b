import math

import numpy as np
from numba import njit


@njit(cache=True)
def _row_softmax(row):
    m = row.max()
    out = np.empty_like(row)
    total = 0.0
    for j in range(row.shape[0]):
        out[j] = math.exp(row[j] - m)
        total += out[j]
    for j in range(row.shape[0]):
        out[j] /= total
    return out


@njit(cache=True)
def numba_attention(Q, K, V):
    n_q, d = Q.shape
    n_k = K.shape[0]
    d_v = V.shape[1]
    scale = 1.0 / math.sqrt(d)
    out = np.zeros((n_q, d_v))
    for i in range(n_q):
        s = np.empty(n_k)
        for j in range(n_k):
            acc = 0.0
            for c in range(d):
                acc += Q[i, c] * K[j, c]
            s[j] = acc * scale
        p = _row_softmax(s)
        for j in range(n_k):
            for c in range(d_v):
                out[i, c] += p[j] * V[j, c]
    return out
