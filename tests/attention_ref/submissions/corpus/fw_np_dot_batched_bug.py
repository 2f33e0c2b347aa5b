import numpy as np


def attention(Q, K, V):
    """Q, K, V: (batch, seq, dim)."""
    d_k = Q.shape[-1]
    scores = np.dot(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.dot(weights, V)
