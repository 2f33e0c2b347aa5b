import numpy as np


def attention(Q, K, V, mask=None):
    """mask: bool (T_q, T_k), True where the query may look at the key."""
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, 0.0)  # zero out the blocked scores
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=-1, keepdims=True)
    return P @ V
