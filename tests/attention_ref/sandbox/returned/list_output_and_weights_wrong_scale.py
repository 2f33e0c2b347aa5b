"""[output, weights] as a list, divided by d_k instead of its square root."""

import numpy as np


def attention(Q, K, V):
    logits = Q @ K.T / K.shape[1]
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return [p @ V, p]
