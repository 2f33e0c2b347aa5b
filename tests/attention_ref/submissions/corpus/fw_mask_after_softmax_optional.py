import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(q, k, v, mask=None):
    """mask: bool (T_q, T_k), True = allowed."""
    attn = softmax(q @ k.T / np.sqrt(q.shape[-1]))
    if mask is not None:
        attn = attn * mask  # drop what may not be seen
    return attn @ v
