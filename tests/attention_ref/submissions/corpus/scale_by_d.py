import numpy as np


def attention(Q, K, V):
    d_k = K.shape[-1]
    scores = Q @ K.T / d_k
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ V
