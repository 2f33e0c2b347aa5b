import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V


# quick test from the notebook (the last cell)
Q = np.random.randn(4, 8)
K = np.random.randn(6, 8)
V = np.random.randn(4, 3)  # oops: V must have as many rows as K
print(attention(Q, K, V))
