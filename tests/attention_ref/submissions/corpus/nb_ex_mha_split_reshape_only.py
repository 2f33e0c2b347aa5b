import numpy as np


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    dh = d_model // n_heads
    # (T, d_model) -> (n_heads, T, dh)
    Q = (X @ W_q).reshape(n_heads, T, dh)
    K = (X @ W_k).reshape(n_heads, T, dh)
    V = (X @ W_v).reshape(n_heads, T, dh)
    A = softmax(np.matmul(Q, np.swapaxes(K, 1, 2)) / np.sqrt(dh))
    O = np.matmul(A, V).transpose(1, 0, 2).reshape(T, d_model)
    return O @ W_o
