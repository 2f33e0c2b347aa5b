import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention_backward(Q, K, V, dO):
    """Gradients of O = softmax(Q K^T / sqrt(d)) V with respect to Q, K, V."""
    scale = 1.0 / np.sqrt(Q.shape[-1])
    S = Q @ K.T * scale
    P = softmax(S)
    # O = P V
    dV = P.T @ dO
    dP = dO @ V.T
    # softmax jacobian, row by row: dS = P * (dP - sum_j dP_j P_j)
    dS = P * (dP - np.sum(dP * P, axis=-1, keepdims=True))
    dQ = dS @ K * scale
    dK = dS.T @ Q * scale
    return dQ, dK, dV


# gradient check on a tiny example (cell 12)
rng = np.random.default_rng(3)
q, k, v, do = (rng.normal(size=(3, 2)) for _ in range(4))
eps = 1e-6
qp = q.copy()
qp[0, 0] += eps
num = ((softmax(qp @ k.T / np.sqrt(2)) @ v - softmax(q @ k.T / np.sqrt(2)) @ v) * do).sum() / eps
print("numeric", num, "analytic", attention_backward(q, k, v, do)[0][0, 0])
