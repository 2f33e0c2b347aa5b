import numpy as np


def attention(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ V
