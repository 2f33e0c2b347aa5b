import numpy as np


def attention(Q, K, V):
    d_k = Q.shape[1]
    A = Q @ K.T / np.sqrt(d_k)
    A = np.exp(A - A.max(axis=1, keepdims=True))
    A = A / A.sum(axis=1, keepdims=True)
    # each column of the result is one query's mix of value vectors
    return V.T @ A.T
