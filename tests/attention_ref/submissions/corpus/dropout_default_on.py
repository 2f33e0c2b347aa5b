import numpy as np


def attention(q, k, v, p=0.1, seed=None):
    """Attention with dropout on the weights (as in the paper)."""
    rng = np.random.default_rng(seed)
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    w = s / s.sum(axis=-1, keepdims=True)
    w = w * (rng.random(w.shape) > p) / (1 - p)
    return w @ v
