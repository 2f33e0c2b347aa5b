"""Name the mistake: compare a submission's outputs with what each classic mistake computes."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

import numpy as np

from attention_ref.battery import Case
from attention_ref.pitfalls import (
    ATTENTION_PAIRS,
    ATTENTION_PITFALLS,
    ATTENTION_VARIANTS,
    CAUSAL_PITFALLS,
    MASK_NOTED,
    NOTED_PITFALLS,
    SOFTMAX_NOTED,
    SOFTMAX_PITFALLS,
    SOFTMAX_VARIANTS,
)
from attention_ref.reference import Array

# What each diagnosis means and how to fix it, in the learner's words.
EXPLANATIONS: dict[str, str] = {
    "missing_transpose": "the scores use Q @ K instead of Q @ K.T: each query must be dotted with "
    "each key's row, so transpose K (this only runs at all when T_k == d_k; NumPy's "
    "K.transpose(-2, -1) is not PyTorch's: it permutes two axes, a no-op on a 2-D array; use "
    "np.swapaxes(K, -1, -2) or K.T)",
    "scale_by_d": "the scores are divided by d_k instead of √d_k: that shrinks them too much "
    "and flattens the weights; divide by np.sqrt(d_k)",
    "no_scale": "the 1/√d_k factor is missing: the scores then have variance d_k and the "
    "softmax saturates; divide Q @ K.T by np.sqrt(d_k)",
    "softmax_wrong_axis": "the softmax normalises down the columns (axis 0 or -2: over the "
    "queries, for attention, or over a batch or heads axis) instead of along each row (over the "
    "keys): each row of weights must sum to 1, so use axis=-1",
    "no_softmax": "there is no softmax: (Q Kᵀ/√d_k) V is a linear map, not attention; turn each "
    "row of scores into weights with a softmax",
    "unstable_softmax": "the softmax overflows on large scores (exp(1000) is inf: inf/inf is "
    "nan, log(inf) turns a log-sum-exp's weights into 0, and math.exp raises OverflowError): "
    "subtract each row's max before exponentiating; the result is the same",
    "wrong_shape": "the output has the wrong shape: attention returns (T_q, d_v), one row per "
    "query with the values' width (a single query row too: keep its axis, do not squeeze)",
    "softmax_whole_array": "the softmax divides by the sum over the whole array: each row of "
    "scores is its own distribution, so sum with axis=-1, keepdims=True",
    "global_max": "the softmax subtracts one max for the whole array: a row whose scores are far "
    "below it underflows to 0 / 0; subtract each row's own max (axis=-1, keepdims=True)",
    "causal_off_by_one": "the causal mask is off by one: query i must see keys 0..i, itself "
    "included, and nothing after it (np.triu(..., k=1) marks the future)",
}


def close(given: Array, expected: Array, case: Case, *, equal_nan: bool = False) -> bool:
    if given.shape != expected.shape:
        return False
    with np.errstate(invalid="ignore"):
        return bool(
            np.allclose(given, expected, rtol=case.rtol, atol=case.atol, equal_nan=equal_nan)
        )


def matching_pitfalls(
    case: Case, given: Array, target: str, mask: Array | None = None
) -> tuple[list[str], list[str]]:
    """Every classic mistake whose output on this case equals the submission's: SPEC names,
    and notes for mistakes without one. `mask` is the case's mask in the additive convention."""
    if target == "attention":
        named = _variants(ATTENTION_PITFALLS, ATTENTION_VARIANTS)
        if case.causal:
            named.update(CAUSAL_PITFALLS)
        noted = NOTED_PITFALLS
        args: tuple[Any, ...] = (*case.args, mask) if mask is not None else case.args
    else:
        named = _variants(SOFTMAX_PITFALLS, SOFTMAX_VARIANTS)
        noted = SOFTMAX_NOTED
        args = case.args
    names = [
        name
        for name, ways in named.items()
        if _matches(ways, args, case, given, all_nan_counts=name == "unstable_softmax")
    ]
    if not names and target == "attention":
        # One mistake in the scores and one in the softmax (no scale, and no max subtracted).
        for pair, ways in ATTENTION_PAIRS.items():
            if _matches(ways, args, case, given):
                names += [name for name in pair if name not in names]
    if not names and _wrong_only_where_exp_overflows(given, case, target):
        names = ["unstable_softmax"]
    notes = [
        note for note, way in noted.items() if not names and _matches((way,), args, case, given)
    ]
    return names, notes


# exp overflows float32 above this (88.7); two scores this large apart can overflow it too.
_OVERFLOW_SCALE = float(np.log(np.finfo(np.float32).max)) / 2


def _wrong_only_where_exp_overflows(given: Array, case: Case, target: str) -> bool:
    """Whether the output is wrong only where exp can overflow: some rows are wrong (nan, inf,
    or finite such as the zeros of exp(s - log(sum(exp(s))))), each a row of scores large
    enough to overflow exp, and every other row is right (a softmax that overflows in its own
    way: subtracting the row's minimum or mean instead of its max, a log-sum-exp without the
    max). Code that returns nan whatever the scores fails the rows of small scores too."""
    expected = case.expected
    if given.shape != expected.shape or given.ndim == 0 or not np.isfinite(expected).all():
        return False
    if not np.issubdtype(given.dtype, np.number):
        return False
    if target == "attention":
        q, k = (np.asarray(a, dtype=np.float64) for a in case.args[:2])
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    else:
        scores = np.asarray(case.args[0], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        rows_right = np.isclose(given, expected, rtol=case.rtol, atol=case.atol).all(axis=-1)
    rows_large = np.abs(scores).max(axis=-1) > _OVERFLOW_SCALE
    # What is left of a row once exp overflowed: nan or inf, or 0 (x / inf, exp(-inf)); a row
    # only a little off is lost precision (float16 scores near 700), not an overflow.
    overflowed = rows_large & _degenerate_rows(given)
    return bool(rows_right.any() and not rows_right.all() and np.all(rows_right | overflowed))


def _degenerate_rows(given: Array) -> Array:
    """Rows holding a nan or inf, or only zeros: what an overflow leaves."""
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(given).all(axis=-1) | (given == 0).all(axis=-1)


def mask_mistakes(case: Case, given: Array, mask: Any, style: str) -> list[str]:
    """How the code applied the mask it was given (`mask` as passed, in a convention of
    `style`), for a masked case no convention gets right: the notes whose computation, with the
    mask as given, is the submission's output. Plain `submit` names only the SPEC's mistakes, so
    these are notes (the causal exercise names its own `mask_after_softmax`)."""
    return [
        note
        for note, (styles, way) in MASK_NOTED.items()
        if style in styles and _matches((way,), (*case.args, mask), case, given)
    ]


def ruled_out_pitfalls(
    case: Case, given: Array, target: str, shown: Collection[str] = ()
) -> list[str]:
    """The named mistakes this case's output rules out: each would show here (one way of making
    it runs and differs from the reference), yet the output, finite, is none of them: a mistake
    matched on one case by coincidence (a scale by sqrt(T_q) equals no scale when T_q = 1) is
    ruled out by the others. Masked cases rule nothing out: a mask handled
    another way changes the output too; nor does an output with nan or inf (an overflow hides
    whatever else the code computes), nor a mistake this case `shown` as one of a pair. `conclude`
    weighs these against the cases that show it."""
    if case.causal or not np.all(np.isfinite(given)):
        return []
    if target == "attention":
        named = _variants(ATTENTION_PITFALLS, ATTENTION_VARIANTS)
    else:
        named = _variants(SOFTMAX_PITFALLS, SOFTMAX_VARIANTS)
    ruled_out = []
    for name, ways in named.items():
        if name in shown:
            continue
        telling = list(_telling_outputs(ways, case.args, case))
        if telling and not any(_close_where_defined(given, wrong, case) for wrong in telling):
            ruled_out.append(name)
    return ruled_out


def _close_where_defined(given: Array, wrong: Array, case: Case) -> bool:
    """Whether `given` is the mistake's output `wrong` in every row where that is finite, and
    overflowed too where that is not: code that overflows may leave nan, inf or 0 in such a row
    (0 from exp(s - log(sum(exp(s)))), nan from exp(s) / sum(exp(s)))."""
    if given.shape != wrong.shape:
        return False
    if given.ndim == 0:
        return close(given, wrong, case, equal_nan=True)
    defined = np.isfinite(wrong).all(axis=-1)
    if not np.all(_degenerate_rows(given)[~defined]):
        return False
    return not np.any(defined) or close(given[defined], wrong[defined], case, equal_nan=True)


def _telling_outputs(
    ways: tuple[Callable[..., Array], ...], args: tuple[Any, ...], case: Case
) -> Iterator[Array]:
    """What each way of making a mistake outputs on this case, where it runs and differs from
    the reference. Each is computed once per case and extra arguments (a mask), and kept in
    the case's memo for every other submission graded on it."""
    extra = tuple(
        (a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, args[len(case.args) :])
    )
    for way in ways:
        key = ("mistake", way, extra)
        if key not in case.memo:
            case.memo[key] = _telling_output(way, args, case)
        wrong = case.memo[key]
        if wrong is not None:
            yield wrong


def _telling_output(way: Callable[..., Array], args: tuple[Any, ...], case: Case) -> Array | None:
    try:
        with np.errstate(all="ignore"):
            wrong = np.asarray(way(*args))
    except (ValueError, TypeError):
        return None  # e.g. Q @ K when the shapes do not allow it
    if close(wrong, case.expected, case):
        return None
    wrong.setflags(write=False)  # shared with every later submission graded on this case
    return wrong


def _variants(
    main: Mapping[str, Callable[..., Array]], more: Mapping[str, tuple[Callable[..., Array], ...]]
) -> dict[str, tuple[Callable[..., Array], ...]]:
    return {name: (way, *more.get(name, ())) for name, way in main.items()}


def _matches(
    ways: tuple[Callable[..., Array], ...],
    args: tuple[Any, ...],
    case: Case,
    given: Array,
    *,
    all_nan_counts: bool = False,
) -> bool:
    """Whether one way of making the mistake gives the submission's output. An output that is
    all nan only names the overflow: every mistake that overflows would match it."""
    for wrong in _telling_outputs(ways, args, case):
        if not all_nan_counts and wrong.size and not np.isfinite(wrong).any():
            continue
        if close(given, wrong, case, equal_nan=True):
            return True
    return False
