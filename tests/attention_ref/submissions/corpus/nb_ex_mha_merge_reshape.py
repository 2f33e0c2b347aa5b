import numpy as np


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    d_head = d_model // n_heads

    def heads(M):
        return M.reshape(T, n_heads, d_head).transpose(1, 0, 2)

    Q, K, V = heads(X @ W_q), heads(X @ W_k), heads(X @ W_v)
    A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_head))
    O = A @ V  # (n_heads, T, d_head)
    O = O.reshape(T, d_model)  # concat heads
    return O @ W_o
