import numpy as np


def causal_attention(Q, K, V):
    T_q, T_k = len(Q), len(K)
    # align the last query with the last key (kv-cache style)
    keep = np.tril(np.ones((T_q, T_k), dtype=bool), k=T_k - T_q)
    s = np.where(keep, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    return (s / s.sum(axis=-1, keepdims=True)) @ V
