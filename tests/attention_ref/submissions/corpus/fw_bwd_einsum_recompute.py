import numpy as np


def attention_backward(Q, K, V, dO):
    scale = 1.0 / np.sqrt(Q.shape[-1])
    # recompute the forward pass
    S = np.einsum("id,jd->ij", Q, K) * scale
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    # O = P V
    dV = np.einsum("ij,id->jd", P, dO)
    dP = np.einsum("id,jd->ij", dO, V)
    # row-wise softmax vector-Jacobian product
    delta = np.einsum("ij,ij->i", dP, P)[:, None]
    dS = P * (dP - delta)
    dQ = np.einsum("ij,jd->id", dS, K) * scale
    dK = np.einsum("ij,id->jd", dS, Q) * scale
    return dQ, dK, dV
