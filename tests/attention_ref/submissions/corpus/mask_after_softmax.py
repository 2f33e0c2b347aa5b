import numpy as np


def softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    ez = np.exp(z)
    return ez / ez.sum(axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    """mask: 1 where attending is allowed, 0 where it is not."""
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = softmax(scores)
    if mask is not None:
        weights = weights * mask  # zero out the positions we must not look at
    return weights @ V
