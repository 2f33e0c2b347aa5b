import numpy as np


def make_attention(scale=None, causal=False):
    """Returns an attention function with its options fixed."""
    def attend(q, k, v):
        c = scale if scale is not None else 1.0 / np.sqrt(q.shape[-1])
        s = q @ k.T * c
        if causal:
            s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
        s = s - s.max(-1, keepdims=True)
        w = np.exp(s)
        return w / w.sum(-1, keepdims=True) @ v
    return attend


attention = make_attention()
