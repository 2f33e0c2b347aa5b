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


def _scores(q: Array, k: Array, dtype: Any) -> Array:
    return (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-1]))


def _scores_untransposed(q: Array, k: Array, dtype: Any) -> Array:
    return (q @ k) / np.sqrt(dtype.type(q.shape[-1]))


def _scores_by_d(q: Array, k: Array, dtype: Any) -> Array:
    return (q @ np.swapaxes(k, -1, -2)) / dtype.type(q.shape[-1])


def _scores_unscaled(q: Array, k: Array, dtype: Any) -> Array:
    return q @ np.swapaxes(k, -1, -2)


def _scores_by_d_model(q: Array, k: Array, dtype: Any) -> Array:
    """(B, H, T, d_head) scores divided by sqrt(H * d_head), the model's width: only heads."""
    if q.ndim < 4:
        raise ValueError("no heads axis")
    return (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-3] * q.shape[-1]))


def _over_leading_axis(axis: int) -> Callable[[Array], Array]:
    """A softmax over a batch or heads axis (`axis` 0 or 1 of batched scores)."""

    def softmax(scores: Array) -> Array:
        if scores.ndim <= axis + 2:
            raise ValueError("no such batch axis")
        return stable_softmax(scores, axis=axis)

    return softmax


def _rows(scores: Array) -> Array:
    return stable_softmax(scores, axis=-1)


def _columns(scores: Array) -> Array:
    return stable_softmax(scores, axis=-2)


def _naive_rows(scores: Array) -> Array:
    return naive_softmax(scores, axis=-1)


def _naive_columns(scores: Array) -> Array:
    return naive_softmax(scores, axis=-2)


def _attention_with(
    scores: Callable[[Array, Array, Any], Array], softmax: Callable[[Array], Array]
) -> Callable[..., Array]:
    """Attention with the scores and the softmax made in the given ways (a mask is added to
    the scores): one mistake in either, or one in each."""

    def buggy(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
        q, k, v, dtype = _prepare(Q, K, V)
        with np.errstate(over="ignore", invalid="ignore"):
            return softmax(_masked(scores(q, k, dtype), mask, dtype)) @ v

    return buggy


def missing_transpose(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """Q @ K instead of Q @ K.T: only defined when d_k == T_k, and then silently wrong."""
    return _attention_with(_scores_untransposed, _rows)(Q, K, V, mask)


def scale_by_d(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """Divides the scores by d_k instead of sqrt(d_k)."""
    return _attention_with(_scores_by_d, _rows)(Q, K, V, mask)


def no_scale(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """Forgets the 1/sqrt(d_k) factor."""
    return _attention_with(_scores_unscaled, _rows)(Q, K, V, mask)


def softmax_wrong_axis(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """Normalises over the queries (axis -2) instead of over the keys."""
    return _attention_with(_scores, _columns)(Q, K, V, mask)


def no_softmax(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
    """(Q K^T / sqrt(d_k)) V: a linear map, not attention. A mask is added as written."""
    q, k, v, dtype = _prepare(Q, K, V)
    scores = _scores(q, k, dtype)
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
    return _attention_with(_scores, _naive_rows)(Q, K, V, mask)


def unstable_softmax_float32(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None
) -> Array:
    """The same overflow in code that computes in float32 (which passes when stable): exp
    overflows from a score of about 89 instead of 710, so other rows turn to nan."""
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    return unstable_softmax(q, k, v, mask)


def naive_softmax_float32(scores: ArrayLike, axis: int = -1) -> Array:
    """exp(s) / sum(exp(s)) computed in float32: overflows from a score of about 89."""
    return naive_softmax(np.asarray(scores, dtype=np.float32), axis=axis)


def global_max_softmax(scores: ArrayLike, axis: int = -1) -> Array:
    """Subtracts one max for the whole array: rows far below it underflow to 0 / 0."""
    s = np.asarray(scores)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(s - np.max(s))
        return e / np.sum(e, axis=axis, keepdims=True)


def whole_array_softmax(scores: ArrayLike) -> Array:
    """Each row's max subtracted, then divided by the sum over the whole array."""
    s = np.asarray(scores)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - np.max(s, axis=-1, keepdims=True))
        return e / np.sum(e)


def whole_array_softmax_global(scores: ArrayLike) -> Array:
    """exp(s - max) / sum over the whole array: one distribution over every score."""
    s = np.asarray(scores)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - np.max(s))
        return e / np.sum(e)


def keepdims_missing_softmax(scores: ArrayLike) -> Array:
    """`x - x.max(axis=-1)` without keepdims: on a square array, column j loses row j's max."""
    s = np.asarray(scores)
    if s.ndim < 2 or s.shape[-1] != s.shape[-2]:
        raise ValueError("only runs on square scores")
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - np.expand_dims(np.max(s, axis=-1), -2))
        return e / np.sum(e, axis=-1, keepdims=True)


def _causal_shifted(shift: int, blocked: float, *, added: bool = False) -> Callable[..., Array]:
    """A causal mask off by one: shift 0 also blocks the diagonal, 2 lets key i + 1 through.
    `added`: `blocked` is added to the scores it blocks (scores + mask * -1e9) rather than put
    in their place, so a row it blocks entirely keeps its scores' differences."""

    def buggy(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None) -> Array:
        q, k, v, dtype = _prepare(Q, K, V)
        t_q, t_k = q.shape[-2], k.shape[-2]
        future = np.triu(np.ones((t_q, t_k), dtype=bool), k=shift)
        scores = _scores(q, k, dtype)
        if added:
            scores = scores + np.where(future, dtype.type(blocked), dtype.type(0))
        else:
            scores = np.where(future, dtype.type(blocked), scores)
        with np.errstate(invalid="ignore"):
            return stable_softmax(scores, axis=-1) @ v

    return buggy


# Diagnosis name (docs/spec.md) -> what the buggy attention computes.
ATTENTION_PITFALLS: dict[str, Callable[..., Array]] = {
    "missing_transpose": missing_transpose,
    "scale_by_d": scale_by_d,
    "no_scale": no_scale,
    "softmax_wrong_axis": softmax_wrong_axis,
    "no_softmax": no_softmax,
    "unstable_softmax": unstable_softmax,
    "global_max": _attention_with(_scores, global_max_softmax),
    "softmax_whole_array": _attention_with(_scores, whole_array_softmax),
}

# Other ways of writing the same named mistake.
ATTENTION_VARIANTS: dict[str, tuple[Callable[..., Array], ...]] = {
    "softmax_whole_array": (_attention_with(_scores, whole_array_softmax_global),),
    # Batched code normalising over the batch or the heads (softmax(axis=0) or axis=1) instead
    # of over the keys: an axis as wrong as the queries'.
    "softmax_wrong_axis": (
        _attention_with(_scores, _over_leading_axis(0)),
        _attention_with(_scores, _over_leading_axis(1)),
    ),
    "unstable_softmax": (unstable_softmax_float32,),
}

# Two mistakes in one submission, one in the scores and one in the softmax, or both mistakes of
# a softmax without the max over the wrong axis: looked for when no single mistake matches, and
# named together.
_SCORE_MISTAKES: dict[str, Callable[[Array, Array, Any], Array]] = {
    "missing_transpose": _scores_untransposed,
    "scale_by_d": _scores_by_d,
    "no_scale": _scores_unscaled,
}
_SOFTMAX_MISTAKES: dict[str, tuple[Callable[[Array], Array], ...]] = {
    "softmax_wrong_axis": (_columns,),
    "unstable_softmax": (_naive_rows, naive_softmax_float32),
    "global_max": (global_max_softmax,),
    "softmax_whole_array": (whole_array_softmax, whole_array_softmax_global),
    "no_softmax": (lambda scores: scores,),
}
ATTENTION_PAIRS: dict[tuple[str, str], tuple[Callable[..., Array], ...]] = {
    (in_scores, in_softmax): tuple(_attention_with(scores, way) for way in ways)
    for in_scores, scores in _SCORE_MISTAKES.items()
    for in_softmax, ways in _SOFTMAX_MISTAKES.items()
}
ATTENTION_PAIRS["softmax_wrong_axis", "unstable_softmax"] = (
    _attention_with(_scores, _naive_columns),
)

# Mistakes of code that builds its own causal mask (checked on causal cases only).
CAUSAL_PITFALLS: dict[str, tuple[Callable[..., Array], ...]] = {
    "causal_off_by_one": (
        _causal_shifted(0, -1e9),
        _causal_shifted(0, -np.inf),
        _causal_shifted(2, -np.inf),
        _causal_shifted(0, -1e9, added=True),
    ),
}

# Mistakes without a SPEC name: reported as a note on the case.
SCALE_BY_D_MODEL_NOTE = (
    "divides each head's scores by √d_model (heads × d_head) instead of √d_head: a head's dot "
    "products have d_head terms, so divide by √d_head"
)

NOTED_PITFALLS: dict[str, Callable[..., Array]] = {
    # Multi-head code in (B, H, T, d_head) scaling by the model's width: the multi-head exercise
    # names it `scale_by_d_model`; plain `submit` names only the SPEC's mistakes, so a note.
    SCALE_BY_D_MODEL_NOTE: _attention_with(_scores_by_d_model, _rows),
    "subtracts x.max(axis=-1) without keepdims=True, so on a square array each column loses "
    "another row's max; write x.max(axis=-1, keepdims=True)": _attention_with(
        _scores, keepdims_missing_softmax
    ),
}


def naive_softmax_other_axis(scores: ArrayLike) -> Array:
    """Both mistakes at once: no max, and normalised over axis 0 (only told apart in 2-D)."""
    if np.ndim(scores) < 2:
        raise ValueError("one vector has one axis")
    return naive_softmax(scores, axis=0)


def softmax_other_axis(scores: ArrayLike) -> Array:
    return stable_softmax(scores, axis=0 if np.ndim(scores) > 1 else -1)


# The same mistakes for a submitted softmax (one score array in, probabilities out).
SOFTMAX_PITFALLS: dict[str, Callable[..., Array]] = {
    "unstable_softmax": naive_softmax,
    "softmax_wrong_axis": softmax_other_axis,
    "global_max": global_max_softmax,
    "softmax_whole_array": whole_array_softmax,
}
SOFTMAX_VARIANTS: dict[str, tuple[Callable[..., Array], ...]] = {
    "softmax_whole_array": (whole_array_softmax_global,),
    "softmax_wrong_axis": (naive_softmax_other_axis,),
    "unstable_softmax": (naive_softmax_float32,),
}
SOFTMAX_NOTED: dict[str, Callable[..., Array]] = {
    "subtracts x.max(axis=-1) without keepdims=True, so on a square array each column loses "
    "another row's max; write x.max(axis=-1, keepdims=True)": keepdims_missing_softmax,
}


def _mask_scores(Q: ArrayLike, K: ArrayLike) -> Array:
    q, k, _, dtype = _prepare(Q, K, K)
    return (q @ np.swapaxes(k, -1, -2)) / np.sqrt(dtype.type(q.shape[-1]))


def mask_after_softmax(Q: ArrayLike, K: ArrayLike, V: ArrayLike, given: ArrayLike) -> Array:
    """softmax(S) * mask @ V: weights zeroed where the mask as given is 0, not renormalised."""
    scores = _mask_scores(Q, K)
    with np.errstate(invalid="ignore"):
        return (stable_softmax(scores, axis=-1) * np.asarray(given, np.float64)) @ np.asarray(V)


def mask_ignored(Q: ArrayLike, K: ArrayLike, V: ArrayLike, given: ArrayLike) -> Array:
    """Attention without the mask."""
    scores = _mask_scores(Q, K)
    return stable_softmax(scores, axis=-1) @ np.asarray(V)


def mask_zeroes_scores(Q: ArrayLike, K: ArrayLike, V: ArrayLike, given: ArrayLike) -> Array:
    """softmax(where(mask, S, 0)) @ V: the blocked scores set to 0, not to -inf."""
    scores = np.where(np.asarray(given).astype(bool), _mask_scores(Q, K), 0.0)
    return stable_softmax(scores, axis=-1) @ np.asarray(V)


def mask_subtracted(Q: ArrayLike, K: ArrayLike, V: ArrayLike, given: ArrayLike) -> Array:
    """softmax(S - mask) @ V: an additive mask with its sign reversed (-inf becomes +inf)."""
    scores = _mask_scores(Q, K)
    with np.errstate(invalid="ignore"):
        return stable_softmax(scores - np.asarray(given, np.float64), axis=-1) @ np.asarray(V)


MASK_AFTER_SOFTMAX_NOTE = (
    "applies the mask after the softmax: the blocked weights are zeroed but the rows no longer "
    "sum to 1; mask the scores before the softmax (or renormalise each row)"
)

# Mistakes in applying a given mask, as notes on a masked case: each takes the mask as the code
# was given it, and is looked for only under the conventions (`MaskConvention.style`) its words
# are true of. Checked when no mask convention gives causal attention.
MASK_NOTED: dict[str, tuple[frozenset[str], Callable[..., Array]]] = {
    MASK_AFTER_SOFTMAX_NOTE: (frozenset({"keep"}), mask_after_softmax),
    "ignores the mask: the output is attention without it, so each query still sees the keys "
    "after it": (frozenset({"additive", "keep", "block"}), mask_ignored),
    "sets the blocked scores to 0 instead of -inf (or a large negative), so a blocked key "
    "still gets the weight of a score of 0; put -inf into the blocked scores": (
        frozenset({"keep"}),
        mask_zeroes_scores,
    ),
    "subtracts the additive mask instead of adding it, so the blocked keys get the most weight "
    "instead of none; add the mask to the scores": (frozenset({"additive"}), mask_subtracted),
}
