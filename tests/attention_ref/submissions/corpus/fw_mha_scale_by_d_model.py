import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    dh = d_model // n_heads

    def split(a):
        return a.reshape(T, n_heads, dh).transpose(1, 0, 2)

    q, k, v = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_model)
    scores = scores - scores.max(-1, keepdims=True)
    a = np.exp(scores)
    a = a / a.sum(-1, keepdims=True)
    o = (a @ v).transpose(1, 0, 2).reshape(T, d_model)
    return o @ W_o
