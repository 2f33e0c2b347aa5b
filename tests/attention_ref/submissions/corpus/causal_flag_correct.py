import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        t_q, t_k = scores.shape
        scores = scores + np.triu(np.full((t_q, t_k), -np.inf), k=1 + t_k - t_q)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
