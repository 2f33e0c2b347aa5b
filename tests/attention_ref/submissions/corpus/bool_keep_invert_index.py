import numpy as np


def masked_attention(Q, K, V, mask=None):
    """mask: boolean (T_q, T_k), True = this key is visible to this query."""
    scores = (Q @ K.T) / np.sqrt(Q.shape[1])
    if mask is not None:
        scores[~mask] = -np.inf
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V
