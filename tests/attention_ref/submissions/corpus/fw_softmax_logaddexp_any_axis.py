import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    return np.exp(x - np.logaddexp.reduce(x, axis=axis, keepdims=True))
