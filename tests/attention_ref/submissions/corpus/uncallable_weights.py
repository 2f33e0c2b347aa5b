import numpy as np


def self_attention(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    s = Q @ K.T / np.sqrt(K.shape[1])
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return (s / s.sum(axis=1, keepdims=True)) @ V
