"""Returns a dataclass holding the output and the weights."""

from dataclasses import dataclass

import numpy as np


@dataclass
class Result:
    output: np.ndarray
    weights: np.ndarray


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return Result(weights @ V, weights)
