import numpy as np


def softmax(x, axis=1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    """Batched: Q (batch, len_q, d), K (batch, len_k, d), V (batch, len_k, d_v)."""
    d = Q.shape[-1]
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d)
    weights = softmax(scores)          # rows, as in the 2-D version
    return np.matmul(weights, V)
