import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
