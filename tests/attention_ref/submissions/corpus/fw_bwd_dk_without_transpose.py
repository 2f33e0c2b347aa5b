import numpy as np


def attention_backward(Q, K, V, dO):
    c = 1 / np.sqrt(Q.shape[-1])
    P = Q @ K.T * c
    P = np.exp(P - P.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    dV = P.T @ dO
    dP = dO @ V.T
    dS = P * (dP - np.sum(dP * P, -1, keepdims=True))
    dQ = dS @ K * c
    dK = dS @ Q * c  # same pattern as dQ
    return dQ, dK, dV
