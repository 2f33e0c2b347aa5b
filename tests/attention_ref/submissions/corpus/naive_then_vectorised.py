import numpy as np


def attention_naive(Q, K, V):
    """One query at a time, to see what is going on."""
    d = Q.shape[1]
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i in range(Q.shape[0]):
        s = np.array([np.dot(Q[i], K[j]) for j in range(K.shape[0])]) / np.sqrt(d)
        s = s - s.max()
        p = np.exp(s) / np.exp(s).sum()
        for j in range(K.shape[0]):
            out[i] += p[j] * V[j]
    return out


def attention(Q, K, V):
    """Same thing, vectorised."""
    s = Q @ K.T / np.sqrt(Q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ V


_Q = np.random.randn(5, 4)
_K = np.random.randn(7, 4)
_V = np.random.randn(7, 3)
assert np.allclose(attention_naive(_Q, _K, _V), attention(_Q, _K, _V))
