import numpy as np


def softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    """mask: True where attending is allowed, False where it is not."""
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = softmax(scores)
    if mask is not None:
        weights = np.where(mask, weights, 0.0)
        weights = weights / weights.sum(axis=-1, keepdims=True)  # rows sum to one again
    return weights @ V
