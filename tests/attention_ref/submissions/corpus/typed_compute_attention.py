from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def softmax(x: Array, axis: int = -1) -> Array:
    """Numerically stable softmax along `axis`."""
    z = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def compute_attention(Q: Array, K: Array, V: Array) -> Array:
    """Return softmax(Q K^T / sqrt(d_k)) V.

    Args:
        Q: queries of shape (T_q, d_k).
        K: keys of shape (T_k, d_k).
        V: values of shape (T_k, d_v).

    Returns:
        The attended values, shape (T_q, d_v).
    """
    d_k: int = Q.shape[-1]
    weights: Array = softmax(Q @ K.T / np.sqrt(d_k), axis=-1)
    return weights @ V
