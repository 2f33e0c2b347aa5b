import numpy as np


def self_attention(q, k, v, causal=True):
    """Decoder self-attention: causal unless told otherwise."""
    t = q.shape[-2]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((t, t), dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(axis=-1, keepdims=True)) @ v
