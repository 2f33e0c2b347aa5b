import numpy as np


def make_causal_mask(n_q, n_k):
    # True = hide this key from this query
    return np.triu(np.ones((n_q, n_k)), k=0).astype(bool)


def decoder_attention(Q, K, V, causal=True):
    s = Q @ K.T / np.sqrt(K.shape[-1])
    if causal:
        s[make_causal_mask(*s.shape)] = -1e9
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ V
