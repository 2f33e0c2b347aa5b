import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis)
    z = np.exp(x - np.expand_dims(m, axis))
    return z / np.expand_dims(z.sum(axis=axis), axis)
