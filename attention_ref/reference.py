"""The NumPy ground truth: stable softmax and scaled dot-product attention.

Works on 2-D inputs and on batched or multi-head inputs `(..., T, d)`, with T_q != T_k and
d_v != d_k, in float32 or float64, with an optional causal or arbitrary mask in either convention:
additive (0 where allowed, -inf where blocked) or boolean keep-mask (True where allowed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[Any]


def stable_softmax(scores: ArrayLike, axis: int = -1) -> Array:
    """softmax along `axis`, computed after subtracting the max, so it never overflows.

    A row that is entirely -inf (every key masked) gives NaN, as the math says: there is no
    distribution over an empty set. Real attention never masks a whole row.
    """
    s = np.asarray(scores)
    if not np.issubdtype(s.dtype, np.floating):
        s = s.astype(np.float64)
    peak = np.max(s, axis=axis, keepdims=True)
    # exp(s - max) <= 1 everywhere; the common factor exp(-max) cancels in the ratio.
    e = np.exp(s - np.where(np.isfinite(peak), peak, 0))
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(t_q: int, t_k: int, *, boolean: bool = False, dtype: Any = np.float64) -> Array:
    """Query i may see keys j <= i + (t_k - t_q) (the last query sees every key)."""
    offset = t_k - t_q
    keep = np.arange(t_k)[None, :] <= np.arange(t_q)[:, None] + offset
    if boolean:
        return keep
    return np.where(keep, 0.0, -np.inf).astype(dtype)


def additive(mask: ArrayLike, dtype: Any) -> Array:
    """A mask in the additive convention: a boolean keep-mask becomes 0 / -inf."""
    m = np.asarray(mask)
    if m.dtype == np.bool_:
        return np.where(m, 0.0, -np.inf).astype(dtype)
    return m.astype(dtype, copy=False)


def attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    causal: bool = False,
    return_weights: bool = False,
) -> Array | tuple[Array, Array]:
    """softmax(Q K^T / sqrt(d_k) + mask) V over the last two axes.

    Q is (..., T_q, d_k), K is (..., T_k, d_k), V is (..., T_k, d_v); the result is
    (..., T_q, d_v) in the inputs' floating dtype (float64 for integer inputs).
    """
    q, k, v = (np.asarray(a) for a in (Q, K, V))
    dtype = np.result_type(q.dtype, k.dtype, v.dtype, np.float32)
    q, k, v = q.astype(dtype, copy=False), k.astype(dtype, copy=False), v.astype(dtype, copy=False)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"Q and K need the same last dimension d_k: {q.shape} vs {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"K and V need the same length T_k: {k.shape} vs {v.shape}")
    d_k = q.shape[-1]
    scores = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(d_k))
    if causal:
        scores = scores + causal_mask(q.shape[-2], k.shape[-2], dtype=dtype)
    if mask is not None:
        scores = scores + additive(mask, dtype)
    weights = stable_softmax(scores, axis=-1)
    out = weights @ v
    return (out, weights) if return_weights else out


def attention_flops(t_q: int, t_k: int, d_k: int, d_v: int | None = None) -> int:
    """Multiply-adds counted as 2 FLOPs: 2 T_q T_k d_k for Q K^T plus 2 T_q T_k d_v for A V."""
    return 2 * t_q * t_k * d_k + 2 * t_q * t_k * (d_k if d_v is None else d_v)
