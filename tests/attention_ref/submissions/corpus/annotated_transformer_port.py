import math

import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention' (a NumPy port of the Annotated Transformer)."
    d_k = query.shape[-1]
    scores = np.matmul(query, np.swapaxes(key, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    p_attn = softmax(scores, axis=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return np.matmul(p_attn, value), p_attn
