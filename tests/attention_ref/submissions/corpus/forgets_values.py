import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    scores = scores - np.max(scores, axis=1, keepdims=True)
    probs = np.exp(scores) / np.sum(np.exp(scores), axis=1, keepdims=True)
    return probs
