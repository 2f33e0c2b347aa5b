"""Returns [output, None] when the weights were not asked for."""

import numpy as np


def attention(Q, K, V, keep=False):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return [weights @ V, weights if keep else None]
