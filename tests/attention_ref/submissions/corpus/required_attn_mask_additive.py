import numpy as np


def sdpa(query, key, value, attn_mask):
    """attn_mask is added to the scores: 0 to keep, -inf (or a big negative) to drop."""
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / np.sqrt(query.shape[-1])
    attn_bias = np.zeros((L, S), dtype=query.dtype)
    attn_bias = attn_bias + attn_mask
    attn_weight = query @ np.swapaxes(key, -2, -1) * scale_factor
    attn_weight = attn_weight + attn_bias
    attn_weight = attn_weight - attn_weight.max(axis=-1, keepdims=True)
    attn_weight = np.exp(attn_weight)
    attn_weight = attn_weight / attn_weight.sum(axis=-1, keepdims=True)
    return attn_weight @ value
