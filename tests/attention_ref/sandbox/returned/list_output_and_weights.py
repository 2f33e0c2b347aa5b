"""Returns [output, weights] as a list, as some tutorials do for plotting the weights."""

import numpy as np


def scaled_dot_product_attention(Q, K, V):
    d_k = K.shape[-1]
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    scores -= np.max(scores, axis=-1, keepdims=True)
    attn = np.exp(scores)
    attn = attn / attn.sum(axis=-1, keepdims=True)
    return [np.matmul(attn, V), attn]
