import numpy as np


def scaled_dot_product_attention(query, key, value):
    d_k = query.shape[-1]
    scores = query @ key.T / np.sqrt(d_k)
    scores = scores - scores.max(-1, keepdims=True)
    attn = np.exp(scores)
    attn = attn / attn.sum(-1, keepdims=True)
    output = attn @ value
    return attn, output
