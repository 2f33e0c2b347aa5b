import math

import numpy as np


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """NumPy port of torch.nn.functional.scaled_dot_product_attention (no dropout)."""
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    attn_bias = np.zeros((L, S), dtype=query.dtype)
    if is_causal:
        allowed = np.tril(np.ones((L, S), dtype=bool))
        attn_bias[~allowed] = -np.inf
    if attn_mask is not None:
        if attn_mask.dtype == np.bool_:
            attn_bias = np.where(attn_mask, attn_bias, -np.inf)
        else:
            attn_bias = attn_bias + attn_mask
    attn_weight = query @ np.swapaxes(key, -2, -1) * scale_factor
    attn_weight = attn_weight + attn_bias
    attn_weight = attn_weight - attn_weight.max(axis=-1, keepdims=True)
    attn_weight = np.exp(attn_weight)
    attn_weight = attn_weight / attn_weight.sum(axis=-1, keepdims=True)
    if dropout_p > 0.0:
        raise NotImplementedError("dropout is not supported in the NumPy port")
    return attn_weight @ value
