"""Naming the mistake from the outputs: the grading path without the sandbox.

Each learner function here runs in the test process (it is our own code) on the real battery,
and its outputs go through the same judging and concluding as a submission's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from attention_ref.battery import attention_cases, in_form, softmax_cases
from attention_ref.discovery import Found
from attention_ref.grading import Grade, _judge, conclude
from attention_ref.reference import causal_mask
from attention_ref.sandbox import CallResult

SEEDS = range(12)


def graded(learner: Callable[..., np.ndarray], target: str, seed: int) -> Grade:
    found = Found("learner", target, ("Q", "K", "V") if target == "attention" else ("x",), 1)
    cases = attention_cases(seed) if target == "attention" else softmax_cases(seed)
    grade = Grade(False, "pass", target, found.name, [], [])
    for case in cases:
        with np.errstate(all="ignore"):
            value = np.asarray(learner(*(a.copy() for a in case.args)))
        grade.cases.append(_judge(case, CallResult("ok", value, None, 0.0), found, None))
    return conclude(grade)


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled_by_sqrt_of_queries(Q, K, V):  # d_k = Q.shape[0]: the number of queries
    return _softmax(Q @ K.T / np.sqrt(Q.shape[0])) @ V


def unscaled(Q, K, V):
    return _softmax(Q @ K.T) @ V


def unscaled_and_clipped(Q, K, V):  # two mistakes; the clip only shows on the large scores
    return _softmax(np.clip(Q @ K.T, -50.0, 50.0)) @ V


def naive_in_float32(Q, K, V):
    q, k, v = (a.astype(np.float32) for a in (Q, K, V))
    e = np.exp(q @ k.T / np.float32(np.sqrt(q.shape[1])))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def naive_softmax_in_float32(x):
    e = np.exp(x.astype(np.float32))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_mistake_matched_by_coincidence_on_one_case_is_not_named(seed: int) -> None:
    # With one query, sqrt(T_q) = 1 and the output is the unscaled one; every other case says
    # the scale is wrong in another way.
    grade = graded(scaled_by_sqrt_of_queries, "attention", seed)
    assert grade.verdict == "wrong"
    assert grade.diagnosis == []
    assert all(case.diagnosis == [] for case in grade.cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_mistake_shown_by_most_cases_is_named_even_beside_a_second_one(seed: int) -> None:
    assert graded(unscaled, "attention", seed).diagnosis == ["no_scale"]
    grade = graded(unscaled_and_clipped, "attention", seed)
    assert grade.verdict == "wrong"
    assert "no_scale" in grade.diagnosis


@pytest.mark.parametrize("seed", SEEDS)
def test_an_overflow_in_float32_is_an_unstable_softmax(seed: int) -> None:
    for learner, target in [(naive_in_float32, "attention"), (naive_softmax_in_float32, "softmax")]:
        grade = graded(learner, target, seed)
        assert grade.verdict == "wrong"
        assert grade.diagnosis == ["unstable_softmax"], [c.message for c in grade.cases]


def unscaled_and_naive(Q, K, V):  # two mistakes: one in the scores, one in the softmax
    e = np.exp(Q @ K.T)
    return (e / np.expand_dims(e.sum(axis=1), 1)) @ V


def by_d_over_queries(Q, K, V):
    s = Q @ K.T / Q.shape[1]
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return (e / e.sum(axis=0, keepdims=True)) @ V


def naive_over_queries(Q, K, V):
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    return (e / e.sum(axis=0, keepdims=True)) @ V


@pytest.mark.parametrize("seed", SEEDS)
def test_two_mistakes_in_one_submission_are_both_named(seed: int) -> None:
    for learner, names in [
        (unscaled_and_naive, ["no_scale", "unstable_softmax"]),
        (by_d_over_queries, ["scale_by_d", "softmax_wrong_axis"]),
        (naive_over_queries, ["softmax_wrong_axis", "unstable_softmax"]),
    ]:
        grade = graded(learner, "attention", seed)
        assert grade.verdict == "wrong"
        assert sorted(grade.diagnosis) == names, [c.message for c in grade.cases]


def shifted_by(statistic: str) -> Callable[[np.ndarray], np.ndarray]:
    def softmax(x: np.ndarray) -> np.ndarray:  # "stable", but shifted by the min or the mean
        e = np.exp(x - getattr(x, statistic)(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    return softmax


def attention_with(softmax: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda Q, K, V: softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def log_sum_exp_without_max(x):  # exp(x - log(sum(exp(x)))): 0, not nan, where exp overflows
    return np.exp(x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True)))


def stable_in_float16(Q, K, V):  # no overflow: rows of large scores lose precision instead
    q, k, v = (a.astype(np.float16) for a in (Q, K, V))
    return _softmax(q @ k.T / np.float16(np.sqrt(q.shape[1]))) @ v


def nan_always(Q, K, V):
    return np.full((Q.shape[0], V.shape[1]), np.nan)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_softmax_that_overflows_its_own_way_is_an_unstable_softmax(seed: int) -> None:
    # Right wherever it is finite, nan only in rows whose scores can overflow exp.
    for statistic in ("min", "mean"):
        for learner, target in [
            (shifted_by(statistic), "softmax"),
            (attention_with(shifted_by(statistic)), "attention"),
        ]:
            grade = graded(learner, target, seed)
            assert grade.verdict == "wrong", (statistic, target)
            assert grade.diagnosis == ["unstable_softmax"], [c.message for c in grade.cases]
    # Wrong but finite (weights of 0) only in rows whose scores overflow exp: the same mistake.
    for learner, target in [
        (log_sum_exp_without_max, "softmax"),
        (attention_with(log_sum_exp_without_max), "attention"),
    ]:
        grade = graded(learner, target, seed)
        assert grade.verdict == "wrong", target
        assert grade.diagnosis == ["unstable_softmax"], [c.message for c in grade.cases]
    # nan whatever the scores is no overflow, nor are large scores that lost precision.
    assert graded(nan_always, "attention", seed).diagnosis == []
    float16 = graded(stable_in_float16, "attention", seed)
    assert float16.verdict == "wrong"
    assert "unstable_softmax" not in float16.diagnosis


def tiled_without_rescaling(Q, K, V, block=64):
    row_max, row_sum = np.full(len(Q), -np.inf), np.zeros(len(Q))
    out = np.zeros((len(Q), V.shape[1]))
    for j in range(0, len(K), block):
        s = Q @ K[j : j + block].T / np.sqrt(Q.shape[1])
        new_max = np.maximum(row_max, s.max(axis=1))
        p = np.exp(s - new_max[:, None])
        row_sum = row_sum * np.exp(row_max - new_max) + p.sum(axis=1)
        out += p @ V[j : j + block]  # the output is never rescaled when the max grows
        row_max = new_max
    return out / row_sum[:, None]


@pytest.mark.parametrize("seed", SEEDS)
def test_blocked_code_is_checked_past_its_first_block(seed: int) -> None:
    grade = graded(tiled_without_rescaling, "attention", seed)
    assert grade.verdict == "wrong"
    assert [c.name for c in grade.cases if not c.passed] == ["long-sequence"]


def test_the_json_cases_keep_the_spec_keys_only() -> None:
    case = graded(scaled_by_sqrt_of_queries, "attention", 0).to_json()["cases"][0]
    assert "ruled_out" not in case


def causal_blocking_the_diagonal_by_addition(Q, K, V):  # scores + mask * -1e9, mask k=0
    blocked = np.triu(np.ones((Q.shape[0], K.shape[0])), k=0)
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1]) + blocked * -1e9) @ V


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_causal_mask_off_by_one_is_named_when_added_to_the_scores(seed: int) -> None:
    # Added, not put in place of the scores: the first row, blocked entirely, keeps its scores'
    # differences and is the unmasked softmax of that row (not uniform, not nan).
    found = Found("causal_attention", "attention", ("Q", "K", "V"), 1)
    grade = Grade(False, "pass", "attention", found.name, [], [])
    for case in attention_cases(seed, causal_only=True):
        with np.errstate(all="ignore"):
            value = causal_blocking_the_diagonal_by_addition(*case.args)
        mask = causal_mask(case.args[0].shape[0], case.args[1].shape[0])
        grade.cases.append(_judge(case, CallResult("ok", value, None, 0.0), found, mask))
    assert conclude(grade).diagnosis == ["causal_off_by_one"]


def softmax_over_heads(q, k, v):  # (B, H, T, d): axis=1 is the heads
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v


def scaled_by_model_width(q, k, v):  # (B, H, T, d_head) scaled by sqrt(H * d_head)
    return _softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[1] * q.shape[-1])) @ v


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize(
    ("learner", "diagnosis", "noted"),
    [
        (softmax_over_heads, ["softmax_wrong_axis"], None),
        # The multi-head exercise's `scale_by_d_model` is no SPEC name for plain `submit`: a note.
        (scaled_by_model_width, [], "√d_model"),
    ],
)
def test_multi_head_mistakes_are_named_in_batched_code(
    learner: Callable[..., np.ndarray], diagnosis: list[str], noted: str | None, seed: int
) -> None:
    found = Found("learner", "attention", ("q", "k", "v"), 1)
    grade = Grade(False, "pass", "attention", found.name, [], [])
    for case in (in_form(c, 4) for c in attention_cases(seed)):
        with np.errstate(all="ignore"):
            value = learner(*case.args)
        grade.cases.append(_judge(case, CallResult("ok", value, None, 0.0), found, None))
    concluded = conclude(grade)
    assert not concluded.passed
    assert concluded.diagnosis == diagnosis
    notes = [note for case in concluded.cases for note in case.notes]
    assert (noted is None) or any(noted in note for note in notes), notes
