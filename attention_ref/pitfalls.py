"""The classic mistakes, as functions: each computes what a learner's buggy code computes.

`attnquiz submit` compares a submission's outputs with these to name the mistake it made; the
names are the diagnosis names of docs/spec.md. Each takes the same arguments as the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from attention_ref.reference import Array, additive, stable_softmax


def _prepare(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> tuple[Array, Array, Array, Any]:
    q, k, v = (np.asarray(a) for a in (Q, K, V))
    dtype = np.result_type(q.dtype, k.dtype, v.dtype, np.float32)
    return q.astype(dtype), k.astype(dtype), v.astype(dtype), dtype


def _masked(scores: Array, mask: ArrayLike | None, dtype: Any) -> Array:
    return scores if mask is None else scores + additive(mask, dtype)


def naive_softmax(scores: ArrayLike, axis: int = -1) -> Array:
    """exp(s) / sum(exp(s)) without the max subtraction: overflows to inf/inf = nan."""
    s = np.asarray(scores)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s)
        return e / np.sum(e, axis=axis, keepdims=True)


def missing_transpose(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """Q @ K instead of Q @ K.T: only defined when d_k == T_k, and then silently wrong."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = (q @ k) / np.sqrt(dtype.type(q.shape[-1]))
    return stable_softmax(_masked(scores, mask, dtype), axis=-1) @ v


def scale_by_d(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """Divides the scores by d_k instead of sqrt(d_k)."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = (q @ np.swapaxes(k, -1, -2)) / dtype.type(q.shape[-1])
    return stable_softmax(_masked(scores, mask, dtype), axis=-1) @ v


def no_scale(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """Forgets the 1/sqrt(d_k) factor."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = q @ np.swapaxes(k, -1, -2)
    return stable_softmax(_masked(scores, mask, dtype), axis=-1) @ v


def softmax_wrong_axis(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """Normalises over the queries (axis -2) instead of over the keys."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-1]))
    return stable_softmax(_masked(scores, mask, dtype), axis=-2) @ v


def no_softmax(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """(Q K^T / sqrt(d_k)) V: a linear map, not attention. A mask is added as written."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-1]))
    if mask is not None:
        m = np.asarray(mask)
        # With a boolean mask the buggy code usually zeroes the blocked scores.
        scores = np.where(m, scores, 0) if m.dtype == np.bool_ else scores + m
    with np.errstate(invalid="ignore"):
        return scores @ v


def unstable_softmax(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """Right formula, but the softmax skips the max subtraction and overflows on large scores."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-1]))
    with np.errstate(invalid="ignore"):
        return naive_softmax(_masked(scores, mask, dtype), axis=-1) @ v


# Diagnosis name (docs/spec.md) -> what the buggy attention computes.
ATTENTION_PITFALLS: dict[str, Callable[..., Array]] = {
    "missing_transpose": missing_transpose,
    "scale_by_d": scale_by_d,
    "no_scale": no_scale,
    "softmax_wrong_axis": softmax_wrong_axis,
    "no_softmax": no_softmax,
    "unstable_softmax": unstable_softmax,
}


def softmax_other_axis(scores: ArrayLike) -> Array:
    return stable_softmax(scores, axis=0 if np.ndim(scores) > 1 else -1)


# The same mistakes for a submitted softmax (one score array in, probabilities out).
SOFTMAX_PITFALLS: dict[str, Callable[..., Array]] = {
    "unstable_softmax": naive_softmax,
    "softmax_wrong_axis": softmax_other_axis,
}
