from collections import namedtuple

import numpy as np

AttentionResult = namedtuple("AttentionResult", ["output", "weights"])


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return AttentionResult(output=weights @ V, weights=weights)
