import numpy as np
def attention(Q, K, V):
    """Q, K, V: (batch, T, d)"""
    s = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(Q.shape[2])
    w = np.exp(s)
    return np.matmul(w / w.sum(axis=1, keepdims=True), V)
