import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    # q: (batch, seq_len_q, depth), k: (batch, seq_len_k, depth)
    logits = np.matmul(q, k.transpose(0, 2, 1)) / np.sqrt(k.shape[-1])
    if mask is not None:
        logits += mask * -1e9
    weights = softmax(logits, axis=-1)
    return np.matmul(weights, v), weights
