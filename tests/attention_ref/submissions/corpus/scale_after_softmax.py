import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    d_k = K.shape[-1]
    weights = softmax(Q @ K.T) / np.sqrt(d_k)
    return weights @ V
