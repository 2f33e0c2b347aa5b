import numpy as np


def scaled_dot_product_attention(q, k, v, is_causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if is_causal:
        n = scores.shape[0]
        scores[np.triu_indices(n, k=2)] = -np.inf
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
