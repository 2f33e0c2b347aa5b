import numpy as np


def scaled_dot_product_attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    scores = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = scores / scores.sum(axis=1, keepdims=True)
    return np.round(weights @ V, 3).tolist()
