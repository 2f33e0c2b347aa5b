import numpy as np


def softmax(x):
    """Compute softmax values for each row of scores in x."""
    return np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)
