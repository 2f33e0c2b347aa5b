import numpy as np


def softmax(v):
    # v is one row (1-D), so the plain max is the row max
    v = v - np.max(v)
    e = np.exp(v)
    return e / np.sum(e)


def attention(Q, K, V):
    n_q = Q.shape[0]
    scale = np.sqrt(K.shape[1])
    weights = np.zeros((n_q, K.shape[0]))
    for i in range(n_q):
        weights[i] = softmax(K @ Q[i] / scale)
    return weights @ V
