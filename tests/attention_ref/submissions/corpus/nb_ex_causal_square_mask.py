import numpy as np


def causal_attention(Q, K, V):
    T = Q.shape[0]
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    future = np.triu(np.ones((T, T)), k=1)
    scores = scores - 1e9 * future
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)
    return w @ V
