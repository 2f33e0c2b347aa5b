import numpy as np


def softmax(x):
    """Softmax over the last axis, computed in place to avoid extra copies."""
    x -= np.max(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= np.sum(x, axis=-1, keepdims=True)
    return x
