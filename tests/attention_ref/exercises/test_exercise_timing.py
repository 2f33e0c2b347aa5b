"""An exercise's timing times the learner's code, never a lookup of an output it kept.

Every exercise (softmax, attention, its causal and tiled forms, multi-head, the backward pass) is
timed on inputs no call of any box has had before, each compared with its own exact output. Two
hostile wrappers around the bank's own solution show it without asserting any time: one raises
when inputs come back (so a ladder that repeats them stops at its first size), the other keeps
the first output per input shape and returns it again (so a ladder that repeats inputs times a
lookup, and one that does not stops on a wrong output)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import attention_ref.exercises.solutions as solutions
import attention_ref.exercises.timing as exercise_timing
from engine.cards.exercise import ExerciseItem

# Raises on inputs it has seen before, by their bytes: an output kept for them could be replayed.
RAISES_ON_REPEATS = """

import hashlib as _hashlib

import numpy as _np

_SEEN = set()
_computed = {function}


def {function}(*args, **kwargs):
    arrays = [_np.ascontiguousarray(a) for a in args if isinstance(a, _np.ndarray)]
    key = _hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()
    if key in _SEEN:
        raise RuntimeError("these inputs came before: their output could be replayed")
    _SEEN.add(key)
    return _computed(*args, **kwargs)
"""

# Computes once per input shape, then replays that output for any inputs of the same shapes.
REPLAYS_BY_SHAPE = """

_KEPT = {{}}
_computed = {function}


def {function}(*args, **kwargs):
    key = tuple(getattr(a, "shape", a) for a in args)
    if key not in _KEPT:
        _KEPT[key] = _computed(*args, **kwargs)
    return _KEPT[key]
"""

SOLUTIONS = {
    "stable-softmax": solutions.softmax,
    "attention": solutions.attention,
    "causal-attention": solutions.causal_attention,
    "multi-head-attention": solutions.multi_head_attention,
    "attention-backward": solutions.attention_backward,
    "tiled-attention": solutions.tiled_attention,
}
# The kernel is timed beside attention and causal attention: those need it compiled.
KERNEL_TIMED = set(exercise_timing.KERNEL_CALLS)
EXERCISES = [
    pytest.param(name, marks=pytest.mark.slow) if name in KERNEL_TIMED else name
    for name in sorted(exercise_timing.INPUTS)
]


def _time(item: ExerciseItem, wrapper: str, tmp_path: Path, request: pytest.FixtureRequest) -> dict:
    if item.battery_name in KERNEL_TIMED:
        request.getfixturevalue("flash_kernel")
    source = item.solution + wrapper.format(function=item.function)
    report = item.time_source(
        source,
        tmp_path / f"{item.function}.py",
        ladder=(32,),
        min_samples=3,
        size_budget_s=0.0,  # what is tested is whether the size is timed, not the figures
    )
    assert report is not None
    return report


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_no_two_timed_calls_get_the_same_inputs(
    exercises: dict[str, ExerciseItem],
    exercise_id: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    report = _time(exercises[exercise_id], RAISES_ON_REPEATS, tmp_path, request)
    assert [row["T"] for row in report["sizes"]] == [32], report["stopped"]
    assert not report["wrong_output"]


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_an_output_replayed_by_shape_is_a_wrong_output(
    exercises: dict[str, ExerciseItem],
    exercise_id: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    report = _time(exercises[exercise_id], REPLAYS_BY_SHAPE, tmp_path, request)
    assert report["sizes"] == [] and report["wrong_output"], report["stopped"]
    assert "timed output of your code is wrong" in report["stopped"]


@pytest.mark.parametrize("battery", sorted(exercise_timing.INPUTS))
def test_each_round_shares_one_new_input_set_with_its_exact_output(battery: str) -> None:
    fresh = exercise_timing.FreshInputs(exercise_timing.INPUTS[battery], np.random.default_rng(3))
    rounds = [["mine", "ref", "kernel"], ["ref", "kernel", "mine"], ["kernel", "mine", "ref"]]
    seen: dict[str, set[bytes]] = {"mine": set(), "ref": set(), "kernel": set()}
    for t in (8, 16):
        for order in rounds:
            given = [fresh.for_call(who, t) for who in order]
            # Like with like: the boxes of one round get the same inputs.
            assert all(args is given[0][0] for args, _ in given)
            args, expected = given[0]
            key = b"".join(a.tobytes() for a in args if isinstance(a, np.ndarray))
            for who in order:
                assert key not in seen[who], f"{who} got the same inputs twice"
                seen[who].add(key)
            truth = SOLUTIONS[battery](*args)
            truth = truth if isinstance(truth, tuple) else (truth,)
            wanted = expected if isinstance(expected, tuple) else (expected,)
            assert len(truth) == len(wanted)
            for got, want in zip(truth, wanted, strict=True):
                np.testing.assert_allclose(want, got, rtol=1e-12)


def test_drawing_inputs_is_not_counted_in_the_sampling_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])

    def slow_inputs(rng: np.random.Generator, t: int) -> tuple[tuple[object, ...], object]:
        now[0] += 5.0  # drawing and computing the output takes 5 s of the clock
        return (rng.normal(size=t),), None

    fresh = exercise_timing.FreshInputs(slow_inputs, np.random.default_rng(0))
    start = fresh.clock()
    fresh.for_call("mine", 4)
    now[0] += 0.5  # the call itself
    fresh.for_call("mine", 4)
    assert fresh.clock() - start == pytest.approx(0.5)
