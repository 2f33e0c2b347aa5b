"""What the report says when a mask is mishandled: the grading path without the sandbox.

Each learner function runs in the test process (it is our own code) through `_run_case`, which
tries every mask convention, as it does a submission in the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from attention_ref.battery import attention_cases
from attention_ref.calling import CallPlan
from attention_ref.discovery import Found
from attention_ref.grading import CaseReport, _run_case
from attention_ref.sandbox import CallResult

SEEDS = range(6)


class InProcess:
    """Stands in for the sandbox: calls the learner's function here."""

    def __init__(self, learner: Callable[..., Any]) -> None:
        self.learner = learner

    def call(self, *args: Any, as_lists: bool = False, **keywords: Any) -> CallResult:
        try:
            with np.errstate(all="ignore"):
                value = np.asarray(self.learner(*(a.copy() for a in args), **keywords))
        except ValueError as exc:
            return CallResult("error", None, f"ValueError: {exc}", 0.0)
        return CallResult("ok", value, None, 0.0)


def causal_report(learner: Callable[..., Any], seed: int) -> CaseReport:
    found = Found("learner", "attention", ("Q", "K", "V", "mask"), 1, roles={"mask": "mask"})
    case = next(c for c in attention_cases(seed, with_mask=True) if c.causal)
    return _run_case(InProcess(learner), case, CallPlan(found))  # type: ignore[arg-type]


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    return Q @ K.T / np.sqrt(K.shape[-1])


def mask_after_softmax(Q, K, V, mask=None):  # mask: 1 = attend
    w = _softmax(_scores(Q, K))
    return (w * mask if mask is not None else w) @ V


def mask_subtracted(Q, K, V, mask=None):  # additive mask, wrong sign
    s = _scores(Q, K)
    return _softmax(s - mask if mask is not None else s) @ V


def mask_ignored(Q, K, V, mask=None):
    return _softmax(_scores(Q, K)) @ V


def keep_mask_unscaled(Q, K, V, mask=None):  # right mask (True = attend), no 1/sqrt(d_k)
    s = Q @ K.T
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    return _softmax(s) @ V


@pytest.mark.parametrize("seed", SEEDS)
def test_mask_after_softmax_is_reported_under_its_keep_convention(seed: int) -> None:
    report = causal_report(mask_after_softmax, seed)
    assert not report.passed
    assert "nan/inf" not in report.message  # finite under its own convention
    assert "with the mask given as boolean keep" in report.message
    assert any("after the softmax" in note for note in report.notes)
    assert report.diagnosis == []  # not one of the SPEC's names for plain `submit`: a note
    assert report.max_error is not None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_subtracted_mask_is_named_as_a_sign_reversal(seed: int) -> None:
    report = causal_report(mask_subtracted, seed)
    assert not report.passed
    assert "additive" in report.message
    assert any("instead of adding it" in note for note in report.notes)
    assert not any("after the softmax" in note for note in report.notes)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_ignored_mask_says_the_convention_made_no_difference(seed: int) -> None:
    report = causal_report(mask_ignored, seed)
    assert any(note.startswith("ignores the mask") for note in report.notes)
    assert "whichever convention" in report.message
    assert "mask given as" not in report.message


def keep_mask_plus_bias(Q, K, V, mask=None):  # right mask (True = attend), output shifted
    s = _scores(Q, K)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    return _softmax(s) @ V + 0.05


def mask_raises(Q, K, V, mask=None):
    raise ValueError("bad mask; try again")


@pytest.mark.parametrize("seed", SEEDS)
def test_an_unnamed_mistake_is_reported_under_the_closest_convention(seed: int) -> None:
    report = causal_report(keep_mask_plus_bias, seed)
    assert report.diagnosis == [] and report.notes == []
    assert "nan/inf" not in report.message
    assert report.message.startswith("wrong values (max error 0.05")
    assert "keep (" in report.message and "came closest" in report.message


def test_an_error_under_every_convention_says_so_after_the_error() -> None:
    report = causal_report(mask_raises, 0)
    assert report.status == "error"
    assert report.message.startswith("raised ValueError: bad mask; try again")
    assert report.message.endswith("no convention ran without an error)")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_right_mask_with_another_mistake_is_reported_under_its_convention(seed: int) -> None:
    report = causal_report(keep_mask_unscaled, seed)
    assert report.diagnosis == ["no_scale"]
    assert "boolean keep" in report.message
    assert report.notes == []


def sums_over_axis_one(Q, K, V):  # right in 2-D; on a batch it normalises over the queries
    e = np.exp(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))
    return e / e.sum(axis=1, keepdims=True) @ V


def test_a_batch_note_says_what_the_2d_code_gives_on_a_batch() -> None:
    from attention_ref.grading import Grade, _try_batched

    found = Found("learner", "attention", ("Q", "K", "V"), 1)
    cases = attention_cases(0)
    grade = Grade(False, "pass", "attention", "learner", [], [])
    _try_batched(InProcess(sums_over_axis_one), CallPlan(found), grade, cases)  # type: ignore[arg-type]
    assert len(grade.notes) == 1
    assert " it gives wrong values (max error " in grade.notes[0]
    assert grade.notes[0].endswith("(not counted)")


def padded_keys_torch_style(Q, K, V, key_padding_mask):  # True = a padded key
    s = np.where(key_padding_mask[None, :], -np.inf, _scores(Q, K))
    return _softmax(s) @ V


def padded_keys_keep_style(Q, K, V, key_mask):  # True = a real key
    return _softmax(np.where(key_mask[None, :], _scores(Q, K), -1e10)) @ V


@pytest.mark.parametrize(
    ("learner", "parameter", "learned"),
    [
        (padded_keys_torch_style, "key_padding_mask", "all False: True = padding"),
        (padded_keys_keep_style, "key_mask", "boolean keep (all True)"),
    ],
)
def test_a_required_padding_mask_masks_nothing_in_the_codes_convention(
    learner: Callable[..., Any], parameter: str, learned: str
) -> None:
    found = Found(
        "learner",
        "attention",
        ("Q", "K", "V", parameter),
        1,
        roles={parameter: "padding"},
        required=frozenset({"Q", "K", "V", parameter}),
    )
    plan = CallPlan(found)
    for case in attention_cases(1)[:4]:
        report = _run_case(InProcess(learner), case, plan)  # type: ignore[arg-type]
        assert report.passed, report.message
    assert learned in plan.padding and learned in plan.describe()


def biased(Q, K, V, attn_bias):
    return _softmax(_scores(Q, K) + attn_bias) @ V


def test_a_required_bias_is_given_zeros() -> None:
    roles, required = {"attn_bias": "bias"}, frozenset({"attn_bias"})
    found = Found("learner", "attention", ("Q", "K", "V", "attn_bias"), 1, "", roles, required)
    case = attention_cases(2)[2]
    report = _run_case(InProcess(biased), case, CallPlan(found))  # type: ignore[arg-type]
    assert report.passed, report.message


def mask_zeroes_scores(Q, K, V, mask=None):  # mask: True = attend; blocked scores set to 0
    s = _scores(Q, K)
    return _softmax(np.where(mask, s, 0.0) if mask is not None else s) @ V


@pytest.mark.parametrize("seed", SEEDS)
def test_blocked_scores_set_to_zero_are_reported_under_the_keep_convention(seed: int) -> None:
    report = causal_report(mask_zeroes_scores, seed)
    assert not report.passed and report.diagnosis == []
    assert "with the mask given as boolean keep" in report.message
    assert any("instead of -inf" in note for note in report.notes)
