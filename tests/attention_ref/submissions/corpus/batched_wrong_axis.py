import numpy as np


def attention(Q, K, V):
    B, T, d = Q.shape
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=1, keepdims=True)
    return w @ V
