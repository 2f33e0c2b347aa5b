import numpy as np


def scaled_dot_product_attention(Q, K, V):
    logits = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, logits
