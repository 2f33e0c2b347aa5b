import numpy as np


def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    """mask: additive, 0 where allowed and -inf where blocked."""
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask
    return softmax(scores) @ V
