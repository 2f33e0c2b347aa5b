import math

import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def scaled_dot_product(q, k, v, mask=None):
    d_k = q.shape[-1]
    attn_logits = np.matmul(q, np.swapaxes(k, -2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = np.where(mask == 0, -9e15, attn_logits)
    attention = softmax(attn_logits, axis=-1)
    values = np.matmul(attention, v)
    return values, attention
