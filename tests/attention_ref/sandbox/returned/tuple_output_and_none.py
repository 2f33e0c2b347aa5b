"""Returns (output, None): the weights are only kept when asked for."""

import numpy as np


def attention(Q, K, V, return_weights=False):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return weights @ V, (weights if return_weights else None)
