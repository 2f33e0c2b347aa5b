import numpy as np


def attention_backward(Q, K, V, dO):
    d_k = Q.shape[-1]
    S = Q @ K.T / np.sqrt(d_k)
    S = S - S.max(axis=-1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (1 - A) * dA  # derivative of softmax: p (1 - p)
    dQ = dS @ K / np.sqrt(d_k)
    dK = dS.T @ Q / np.sqrt(d_k)
    return dQ, dK, dV
