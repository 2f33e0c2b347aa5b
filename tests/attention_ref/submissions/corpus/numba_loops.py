import math

import numpy as np
from numba import njit


@njit(cache=True)
def attention(Q, K, V):
    n_q, d = Q.shape
    n_k, d_v = V.shape
    out = np.zeros((n_q, d_v), dtype=np.float64)
    scale = 1.0 / math.sqrt(d)
    row = np.empty(n_k)
    for i in range(n_q):
        m = -np.inf
        for j in range(n_k):
            s = 0.0
            for c in range(d):
                s += Q[i, c] * K[j, c]
            row[j] = s * scale
            if row[j] > m:
                m = row[j]
        total = 0.0
        for j in range(n_k):
            row[j] = math.exp(row[j] - m)
            total += row[j]
        for j in range(n_k):
            w = row[j] / total
            for c in range(d_v):
                out[i, c] += w * V[j, c]
    return out
