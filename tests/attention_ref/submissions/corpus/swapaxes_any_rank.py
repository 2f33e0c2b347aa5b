import numpy as np


def scaled_dot_product_attention(query, key, value):
    d = query.shape[-1]
    scores = query @ np.swapaxes(key, -1, -2) / np.sqrt(d)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / np.sum(weights, axis=-1, keepdims=True)
    return weights @ value
