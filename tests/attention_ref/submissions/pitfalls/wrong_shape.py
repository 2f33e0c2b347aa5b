import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)).T @ Q
