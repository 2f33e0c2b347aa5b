import numpy as np

np.random.seed(1)


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - s.max(axis=1, keepdims=True)
    a = np.exp(s)
    a /= a.sum(axis=1, keepdims=True)
    return a @ V


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    dh = Q.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * dh, (h + 1) * dh)
        outs.append(attention(Q[:, cols], K[:, cols], V[:, cols]))
    return np.concatenate(outs, axis=1) @ W_o


X = np.random.randn(3, 4)
W = np.random.randn(4, 4)
print(multi_head_attention(X, W, W, W, W, 2))
