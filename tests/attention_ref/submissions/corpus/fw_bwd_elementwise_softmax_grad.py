import numpy as np


def attention_backward(Q, K, V, dO):
    d = Q.shape[1]
    S = Q @ K.T / np.sqrt(d)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A = A / A.sum(axis=1, keepdims=True)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (1 - A) * dA  # softmax'(s) = softmax(s) (1 - softmax(s))
    dQ = dS @ K / np.sqrt(d)
    dK = dS.T @ Q / np.sqrt(d)
    return dQ, dK, dV
