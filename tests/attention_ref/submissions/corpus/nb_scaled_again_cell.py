import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    d_k = K.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    # normalise by the key size so large d_k does not blow up the scores
    scores = scores / np.sqrt(d_k)
    return softmax(scores) @ V
