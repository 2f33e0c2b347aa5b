import numpy as np


def attention(query, key, value, key_padding_mask=None, need_weights=True):
    """key_padding_mask: (T_k,) bool, True = padding key to ignore (as in torch MHA)."""
    s = query @ key.T / np.sqrt(query.shape[-1])
    if key_padding_mask is not None:
        s = np.where(key_padding_mask[None, :], -np.inf, s)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    out = w @ value
    return (out, w) if need_weights else (out, None)
