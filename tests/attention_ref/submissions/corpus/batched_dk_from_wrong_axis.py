import numpy as np


def batched_attention(Q, K, V):
    """Q: (batch, T_q, d_k), K: (batch, T_k, d_k), V: (batch, T_k, d_v)."""
    d_k = Q.shape[1]
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.matmul(w, V)
