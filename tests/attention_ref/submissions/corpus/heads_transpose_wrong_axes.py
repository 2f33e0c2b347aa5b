import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def multi_head_sdpa(Q, K, V):
    # Q, K, V: (batch, n_heads, seq_len, d_head)
    d_head = Q.shape[-1]
    K_t = K.transpose(0, 2, 1, 3)
    scores = np.matmul(Q, K_t) / np.sqrt(d_head)
    return np.matmul(softmax(scores), V)
