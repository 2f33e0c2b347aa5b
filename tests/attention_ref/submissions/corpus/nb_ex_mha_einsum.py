import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, D = X.shape
    hd = D // n_heads
    q = np.einsum("td,de->te", X, W_q).reshape(T, n_heads, hd)
    k = np.einsum("td,de->te", X, W_k).reshape(T, n_heads, hd)
    v = np.einsum("td,de->te", X, W_v).reshape(T, n_heads, hd)
    s = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(hd)
    s -= s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    o = np.einsum("hqk,khd->qhd", p, v).reshape(T, D)
    return o @ W_o
