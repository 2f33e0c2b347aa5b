import numpy as np


def similarity(Q, K):
    return Q @ K.T


def scale(scores, d_k):
    return scores / np.sqrt(d_k)


def normalise(scores):
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return w / w.sum(axis=-1, keepdims=True)


def mix(weights, V):
    return weights @ V


def attention_head(Q, K, V):
    weights = normalise(scale(similarity(Q, K), K.shape[-1]))
    return mix(weights, V)
