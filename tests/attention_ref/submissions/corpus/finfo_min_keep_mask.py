import numpy as np


def attention(query, key, value, mask=None):
    """mask: boolean, True where the query may look at the key."""
    scores = query @ key.T / np.sqrt(query.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, np.finfo(scores.dtype).min)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return p @ value
