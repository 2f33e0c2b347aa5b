import numpy as np


def attention_backward(Q, K, V, dO):
    d_k = Q.shape[-1]
    S = Q @ K.T / np.sqrt(d_k)
    S = S - S.max(axis=-1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=-1, keepdims=True))
    dQ = dS @ K
    dK = dS.T @ Q
    return dQ, dK, dV
