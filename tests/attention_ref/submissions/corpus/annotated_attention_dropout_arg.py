import math

import numpy as np


def softmax(x, dim=-1):
    shifted = x - np.max(x, axis=dim, keepdims=True)
    ex = np.exp(shifted)
    return ex / np.sum(ex, axis=dim, keepdims=True)


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = np.matmul(query, np.swapaxes(key, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores, dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return np.matmul(p_attn, value), p_attn
