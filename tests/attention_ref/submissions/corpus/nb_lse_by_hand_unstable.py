import numpy as np


def log_softmax(s):
    # log p_j = s_j - log sum_k exp(s_k)
    return s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    return np.exp(log_softmax(s)) @ V
