import numpy as np


def scaled_dot_product_attention(Q, K, V):
    """Q: (batch, seq_q, d_k), K: (batch, seq_k, d_k), V: (batch, seq_k, d_v)."""
    batch, seq_q, d_k = Q.shape
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    scores = scores - scores.max(axis=2, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=2, keepdims=True)
    return np.matmul(weights, V)
