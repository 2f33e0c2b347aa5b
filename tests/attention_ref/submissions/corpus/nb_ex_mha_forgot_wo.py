import numpy as np


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    dh = d_model // n_heads
    out = np.empty((T, d_model))
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    for h in range(n_heads):
        c = slice(h * dh, (h + 1) * dh)
        A = softmax(Q[:, c] @ K[:, c].T / np.sqrt(dh))
        out[:, c] = A @ V[:, c]
    return out
