import numpy as np


def softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=None, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    dk = Q.shape[-1]
    return softmax(Q @ K.T / np.sqrt(dk)) @ V
