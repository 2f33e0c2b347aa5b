import numpy as np


def softmax(x, dim):
    x = x - x.max(axis=dim, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=dim, keepdims=True)


def scaled_dot_product_attention(query, key, value):
    """Port of our torch layer: query/key/value are (batch, seq, dim)."""
    d_k = query.shape[-1]
    scores = np.matmul(query, np.transpose(key, (0, 2, 1))) / np.sqrt(d_k)
    p_attn = softmax(scores, dim=1)  # was F.softmax(scores, dim=1) in the 2-D version
    return np.matmul(p_attn, value)
