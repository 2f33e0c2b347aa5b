import numpy as np

# mask convention in this notebook: True = this position is BLOCKED (padding / future)


def attention(Q, K, V, mask=None):
    dk = K.shape[-1]
    scores = (Q @ K.T) / dk ** 0.5
    if mask is not None:
        scores = scores.copy()
        scores[mask] = -1e9
    scores = scores - scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(-1, keepdims=True)
    return w @ V


T = 4
future = np.triu(np.ones((T, T), dtype=bool), k=1)
x = np.arange(T * 2, dtype=float).reshape(T, 2)
print(attention(x, x, x, mask=future))
