from functools import partial

import numpy as np


def _sdpa(q, k, v, scale=None):
    """Shared implementation; scale defaults to 1/sqrt(d_k)."""
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    s = (q @ k.T) * scale
    s -= s.max(-1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(-1, keepdims=True)) @ v


# the public entry points of this module
attention = partial(_sdpa, scale=None)
