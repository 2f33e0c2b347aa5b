import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    d_head = d_model // n_heads

    def split(a):
        # (T, d_head, H) -> (H, T, d_head)
        return a.reshape(T, d_head, n_heads).transpose(2, 0, 1)

    def merge(a):
        # (H, T, d_head) -> (T, d_head, H) -> (T, d_model)
        return a.transpose(1, 2, 0).reshape(T, d_model)

    q, k, v = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(d_head)
    s -= s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return merge(p @ v) @ W_o
