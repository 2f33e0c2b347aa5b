import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def multihead_scaled_dot_product(q, k, v):
    # q, k, v: (batch, heads, seq, head_dim)
    b, h, t, d = q.shape
    scores = np.matmul(q, k.transpose(0, 1, 3, 2)) / np.sqrt(d)
    return np.matmul(softmax(scores), v)
