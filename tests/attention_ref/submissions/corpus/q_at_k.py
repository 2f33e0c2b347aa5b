import numpy as np


def attention(Q, K, V):
    scores = Q @ K / np.sqrt(K.shape[0])
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=1, keepdims=True)
    return w @ V
