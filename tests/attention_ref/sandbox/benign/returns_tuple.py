"""Returns (output, weights, scale) like many tutorial implementations."""

import math

import numpy as np


def attention(Q, K, V):
    scale = 1 / math.sqrt(Q.shape[-1])
    scores = (Q @ K.T) * scale
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights, scale
