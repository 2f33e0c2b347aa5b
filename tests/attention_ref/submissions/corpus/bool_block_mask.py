import numpy as np


def attention(query, key, value, mask=None):
    scores = np.dot(query, key.T) / np.sqrt(query.shape[1])
    if mask is not None:
        scores = scores.copy()
        scores[mask] = -1e9  # True = padding / future token, blocked
    scores -= np.max(scores, axis=1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=1, keepdims=True)
    return np.dot(p, value)
