"""Computes the output and forgets to return it (the function returns None)."""

import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    output = weights @ V  # noqa: F841
