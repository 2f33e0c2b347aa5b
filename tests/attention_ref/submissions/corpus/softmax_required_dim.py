import numpy as np


def softmax(x, dim):
    x = x - x.max(axis=dim, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=dim, keepdims=True)
