import numpy as np


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    d_k = Q.shape[0]  # dimension of the queries
    scores = Q @ K.T / np.sqrt(d_k)
    return softmax(scores) @ V
