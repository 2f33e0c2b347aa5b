import numpy as np


def single_head_attention(Q, K, V):
    scores = np.dot(Q, K.T) / np.sqrt(Q.shape[1])
    scores = scores - scores.max(axis=0, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=0, keepdims=True)
    return np.dot(weights, V)
