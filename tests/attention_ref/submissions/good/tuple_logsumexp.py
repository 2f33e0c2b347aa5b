import numpy as np


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[1])
    log_norm = np.log(np.exp(scores - scores.max(-1, keepdims=True)).sum(-1, keepdims=True))
    weights = np.exp(scores - scores.max(-1, keepdims=True) - log_norm)
    return weights @ V, weights
