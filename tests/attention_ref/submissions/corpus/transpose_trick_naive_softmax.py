import numpy as np


def softmax(x):
    x = np.exp(x)
    return (x.T / np.sum(x, axis=-1)).T


def self_attention(q, k, v):
    d_k = q.shape[-1]
    return softmax(q @ k.T / np.sqrt(d_k)) @ v
