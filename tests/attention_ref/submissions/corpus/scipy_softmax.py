import numpy as np
from scipy.special import softmax


def attention(Q, K, V):
    d_k = K.shape[-1]
    weights = softmax(Q @ K.T / np.sqrt(d_k), axis=-1)
    return weights @ V
