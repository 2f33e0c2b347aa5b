import numpy as np


def attention_backward(Q, K, V, dO):
    scale = Q.shape[-1] ** -0.5
    S = (Q @ K.T) * scale
    P = np.exp(S - S.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    dV = S.T @ dO
    dP = dO @ V.T
    dS = P * (dP - (P * dP).sum(-1, keepdims=True))
    return dS @ K * scale, dS.T @ Q * scale, dV
