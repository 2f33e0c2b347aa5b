import numpy as np


def attention(Q, K, V):
    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(Q.shape[-1])
    scores -= scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", w, V)
