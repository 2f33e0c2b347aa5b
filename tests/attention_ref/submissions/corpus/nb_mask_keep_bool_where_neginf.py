import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None, dropout=0.0):
    """
    Q: (..., L, d_k)  K: (..., S, d_k)  V: (..., S, d_v)
    mask: boolean, True where the query MAY attend (keep), broadcastable to (..., L, S)
    dropout: probability of dropping an attention weight (0 = off)
    """
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    attn = softmax(scores, axis=-1)
    if dropout > 0.0:
        keep = np.random.rand(*attn.shape) >= dropout
        attn = attn * keep / (1.0 - dropout)
    return np.matmul(attn, V), attn
