import numpy as np


def softmax(s):
    s = s - s.max(axis=0)  # subtract the max for stability
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def attention(Q, K, V):
    return softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V
