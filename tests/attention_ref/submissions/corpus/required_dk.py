import numpy as np


def attention(Q, K, V, d_k):
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / np.sum(w, axis=-1, keepdims=True)
    return np.matmul(w, V)
