import numpy as np


def attention(Q, K, V, causal=False):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        keep = np.tril(np.ones((n_q, n_k)), k=1).astype(bool)
        s = np.where(keep, s, -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(axis=1, keepdims=True) @ V
