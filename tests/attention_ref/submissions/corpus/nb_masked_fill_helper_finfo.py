import numpy as np


def masked_fill(x, where, value):
    """numpy stand-in for torch.Tensor.masked_fill (returns a new array)."""
    out = np.array(x, copy=True)
    out[np.broadcast_to(where, out.shape)] = value
    return out


def softmax(x, dim=-1):
    m = x.max(axis=dim, keepdims=True)
    y = np.exp(x - m)
    return y / y.sum(axis=dim, keepdims=True)


def sdpa(query, key, value, attn_mask=None):
    # attn_mask: 1 = attend, 0 = masked out (like the HF attention_mask)
    scores = query @ np.swapaxes(key, -1, -2) / np.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = masked_fill(scores, attn_mask == 0, np.finfo(scores.dtype).min)
    return softmax(scores) @ value
