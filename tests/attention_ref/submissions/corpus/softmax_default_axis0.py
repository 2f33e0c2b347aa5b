import numpy as np


def softmax(x, axis=0):
    """Numerically stable softmax."""
    x = np.asarray(x, dtype=float)
    z = x - np.max(x, axis=axis, keepdims=True)
    num = np.exp(z)
    return num / np.sum(num, axis=axis, keepdims=True)
