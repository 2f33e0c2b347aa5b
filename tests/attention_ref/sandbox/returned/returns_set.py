"""Returns a set of the output's values (a misuse of set to "deduplicate")."""

import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return set((weights @ V).ravel().tolist())
