"""Name the mistake: compare a submission's outputs with what each classic mistake computes."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from attention_ref.battery import Case
from attention_ref.pitfalls import ATTENTION_PITFALLS, SOFTMAX_PITFALLS
from attention_ref.reference import Array

# What each diagnosis means and how to fix it, in the learner's words.
EXPLANATIONS: dict[str, str] = {
    "missing_transpose": "the scores use Q @ K instead of Q @ K.T: each query must be dotted with "
    "each key's row, so transpose K (this only runs at all when T_k == d_k)",
    "scale_by_d": "the scores are divided by d_k instead of √d_k: that shrinks them too much "
    "and flattens the weights; divide by np.sqrt(d_k)",
    "no_scale": "the 1/√d_k factor is missing: the scores then have variance d_k and the "
    "softmax saturates; divide Q @ K.T by np.sqrt(d_k)",
    "softmax_wrong_axis": "the softmax normalises over the queries (axis 0) instead of over the "
    "keys: each row of weights must sum to 1, so use axis=-1",
    "no_softmax": "there is no softmax: (Q Kᵀ/√d_k) V is a linear map, not attention; turn each "
    "row of scores into weights with a softmax",
    "unstable_softmax": "the softmax overflows on large scores (exp(1000) is inf, inf/inf is "
    "nan): subtract each row's max before exponentiating; the result is the same",
    "wrong_shape": "the output has the wrong shape: attention returns (T_q, d_v), one row per "
    "query with the values' width",
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
) -> list[str]:
    """Every classic mistake whose output on this case equals the submission's."""
    pitfalls: Mapping[str, Callable[..., Array]] = (
        ATTENTION_PITFALLS if target == "attention" else SOFTMAX_PITFALLS
    )
    found = []
    for name, pitfall in pitfalls.items():
        try:
            with np.errstate(all="ignore"):
                args = (*case.args, mask) if mask is not None else case.args
                wrong = np.asarray(pitfall(*args))
        except (ValueError, TypeError):
            continue  # e.g. Q @ K when the shapes do not allow it
        if close(given, wrong, case, equal_nan=True) and not close(wrong, case.expected, case):
            found.append(name)
    return found
