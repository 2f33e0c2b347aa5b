import numpy as np


def attention_backward(Q, K, V, dO):
    d = Q.shape[1]
    S = np.einsum("id,jd->ij", Q, K) / np.sqrt(d)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    dV = np.einsum("ij,id->jd", A, dO)
    dA = np.einsum("id,jd->ij", dO, V)
    dS = np.zeros_like(A)
    for i in range(A.shape[0]):
        a = A[i]
        jac = np.diag(a) - np.outer(a, a)  # d softmax / d s for row i
        dS[i] = jac @ dA[i]
    dQ = np.einsum("ij,jd->id", dS, K) / np.sqrt(d)
    dK = np.einsum("ij,id->jd", dS, Q) / np.sqrt(d)
    return dQ, dK, dV
