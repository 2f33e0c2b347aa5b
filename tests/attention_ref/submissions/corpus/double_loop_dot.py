import math

import numpy as np


def attention(Q, K, V):
    n_q, d = Q.shape
    n_k = K.shape[0]
    scores = np.zeros((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            scores[i, j] = np.dot(Q[i], K[j]) / math.sqrt(d)
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        row = scores[i] - np.max(scores[i])
        w = np.exp(row)
        w = w / w.sum()
        for j in range(n_k):
            out[i] += w[j] * V[j]
    return out
