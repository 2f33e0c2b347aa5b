import numpy as np


def scaled_dot_product_attention(query, key, value):
    batch_size, seq_len, d_k = query.shape
    scores = np.matmul(query, key.transpose(-2, -1)) / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    return np.matmul(p, value)
