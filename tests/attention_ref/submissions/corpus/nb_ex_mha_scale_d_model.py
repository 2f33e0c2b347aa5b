import numpy as np


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    d_head = d_model // n_heads
    Q = (X @ W_q).reshape(T, n_heads, d_head).transpose(1, 0, 2)
    K = (X @ W_k).reshape(T, n_heads, d_head).transpose(1, 0, 2)
    V = (X @ W_v).reshape(T, n_heads, d_head).transpose(1, 0, 2)
    A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_model))
    O = (A @ V).transpose(1, 0, 2).reshape(T, d_model)
    return O @ W_o
