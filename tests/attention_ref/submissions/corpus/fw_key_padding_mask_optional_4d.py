from typing import Optional

import numpy as np

NEG_INF = np.finfo(np.float64).min


def multihead_sdpa(q, k, v, key_padding_mask: Optional[np.ndarray] = None):
    """q, k, v: (batch, heads, seq, head_dim).

    key_padding_mask: (batch, seq_k) bool, True where the key is padding (torch convention).
    """
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1])
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], NEG_INF, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", weights, v)
