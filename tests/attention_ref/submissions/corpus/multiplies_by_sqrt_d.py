import numpy as np


def scaled_dot_product(q, k, v):
    d_k = q.shape[-1]
    logits = np.matmul(q, k.T) * np.sqrt(d_k)
    logits -= np.max(logits, axis=-1, keepdims=True)
    attn = np.exp(logits)
    attn /= np.sum(attn, axis=-1, keepdims=True)
    return np.matmul(attn, v), attn
