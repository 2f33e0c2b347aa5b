import numpy as np


def attention(Q, K, V):
    n_k, d_k = K.shape
    K_t = K.reshape(d_k, n_k)  # (n_k, d_k) -> (d_k, n_k)
    scores = Q @ K_t / np.sqrt(d_k)
    scores -= scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)
    return w @ V
