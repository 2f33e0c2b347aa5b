"""Naming the mistake from the outputs: the grading path without the sandbox.

Each learner function here runs in the test process (it is our own code) on the real battery,
and its outputs go through the same judging and concluding as a submission's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from attention_ref.battery import attention_cases, softmax_cases
from attention_ref.discovery import Found
from attention_ref.grading import Grade, _judge, conclude
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


def test_the_json_cases_keep_the_spec_keys_only() -> None:
    case = graded(scaled_by_sqrt_of_queries, "attention", 0).to_json()["cases"][0]
    assert "ruled_out" not in case
