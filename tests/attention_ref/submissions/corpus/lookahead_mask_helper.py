import numpy as np


def create_look_ahead_mask(size):
    return 1 - np.tril(np.ones((size, size)))


def softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    return np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)


def scaled_dot_product_attention(q, k, v, mask):
    logits = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    logits = logits * (1 - mask) + mask * -1e9
    return np.matmul(softmax(logits), v)
