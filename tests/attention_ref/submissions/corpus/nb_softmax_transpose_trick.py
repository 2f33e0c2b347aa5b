import numpy as np


def softmax(x):
    """Row-wise softmax for a 2-D array (CS231n trick: broadcast over the transpose)."""
    x = (x.T - np.max(x, axis=1)).T
    ex = np.exp(x)
    return (ex.T / np.sum(ex, axis=1)).T


def scaled_dot_product_attention(Q, K, V):
    S = Q.dot(K.T) / np.sqrt(Q.shape[1])
    return softmax(S).dot(V)
