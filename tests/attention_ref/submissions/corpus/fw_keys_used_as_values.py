import numpy as np


def scaled_dot_product_attention(query, key, value):
    d_k = query.shape[-1]
    logits = np.matmul(query, key.swapaxes(-1, -2)) / np.sqrt(d_k)
    logits = logits - np.max(logits, axis=-1, keepdims=True)
    attn = np.exp(logits)
    attn = attn / np.sum(attn, axis=-1, keepdims=True)
    return np.matmul(attn, key)
