import numpy as np


def _single(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return (s / s.sum(axis=1, keepdims=True)) @ v


def batched_attention(Q, K, V):
    """Q: (B, T_q, d), K: (B, T_k, d), V: (B, T_k, d_v) -> (B, T_q, d_v)."""
    return np.stack([_single(Q[b], K[b], V[b]) for b in range(Q.shape[0])])
