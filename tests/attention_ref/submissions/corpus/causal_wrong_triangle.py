import numpy as np


def causal_attention(Q, K, V, causal=True):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if causal:
        # block the other triangle: query i must not see key j
        blocked = np.tril(np.ones(scores.shape, dtype=bool), k=-1)
        scores[blocked] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ V
