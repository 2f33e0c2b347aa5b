import numpy as np


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    """Attention for one head; works for (T, d) and for stacked heads (..., T, d)."""
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -2, -1) / np.sqrt(d_k)
    return softmax(scores, axis=-1) @ V


def multi_head_attention(Q, K, V, W_q, W_k, W_v, W_o, num_heads):
    """Q, K, V: (batch, seq, d_model); W_*: (d_model, d_model)."""
    batch, seq_q, d_model = Q.shape
    seq_k = K.shape[1]
    head = d_model // num_heads

    def split(x, seq):
        return x.reshape(batch, seq, num_heads, head).transpose(0, 2, 1, 3)

    q = split(Q @ W_q, seq_q)
    k = split(K @ W_k, seq_k)
    v = split(V @ W_v, seq_k)
    ctx = scaled_dot_product_attention(q, k, v)
    ctx = ctx.transpose(0, 2, 1, 3).reshape(batch, seq_q, d_model)
    return ctx @ W_o
