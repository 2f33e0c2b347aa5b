import numpy as np


def softmax(z):
    return np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    d_k = Q.shape[-1]
    return softmax(np.matmul(Q, K.T) / np.sqrt(d_k)) @ V
