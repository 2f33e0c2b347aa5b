import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, D = X.shape
    hd = D // n_heads
    q = (X @ W_q).reshape(T, n_heads, hd).transpose(1, 0, 2)  # (H, T, hd)
    k = (X @ W_k).reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = (X @ W_v).reshape(T, n_heads, hd).transpose(1, 0, 2)
    att = np.einsum("hqd,hkd->hqk", q, k) / np.sqrt(hd)
    att = np.exp(att - att.max(axis=1, keepdims=True))
    att = att / att.sum(axis=1, keepdims=True)
    y = np.einsum("hqk,hkd->qhd", att, v).reshape(T, D)
    return y @ W_o
