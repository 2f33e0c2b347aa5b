"""Returns a formatted string of the result instead of the array."""

import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.array2string(weights @ V, precision=4)
