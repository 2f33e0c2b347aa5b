import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads):
    T, d_model = X.shape
    d_head = d_model // n_heads
    # (T, H, d_head): head h owns columns h*d_head:(h+1)*d_head
    q = (X @ W_q).reshape(T, n_heads, d_head)
    k = (X @ W_k).reshape(T, n_heads, d_head)
    v = (X @ W_v).reshape(T, n_heads, d_head)
    logits = np.einsum("thd,shd->hts", q, k) / np.sqrt(d_head)
    logits -= logits.max(axis=-1, keepdims=True)
    w = np.exp(logits)
    w /= w.sum(axis=-1, keepdims=True)
    heads = np.einsum("hts,shd->thd", w, v)
    return heads.reshape(T, d_model) @ W_o
