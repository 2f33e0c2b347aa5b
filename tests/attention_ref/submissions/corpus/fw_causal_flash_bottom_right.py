import numpy as np


def causal_attention(Q, K, V):
    """Causal mask aligned to the end of the keys (queries are the last T_q positions)."""
    t_q, t_k = Q.shape[0], K.shape[0]
    offset = t_k - t_q
    allowed = np.tril(np.ones((t_q, t_k), dtype=bool), k=offset)
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    s = np.where(allowed, s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(-1, keepdims=True)) @ V
