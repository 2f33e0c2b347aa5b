import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(query, key, value):
    # np.inner(a, b)[i, j] = a[i] . b[j], i.e. query @ key.T
    scores = np.inner(query, key) / np.sqrt(key.shape[-1])
    return np.matmul(softmax(scores), value)
