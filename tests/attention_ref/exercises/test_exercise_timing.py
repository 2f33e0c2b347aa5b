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
from attention_ref.exercises.batteries import TRUTHS
from attention_ref.sandbox import CallResult
from attention_ref.timing import StopLadder
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

SOLUTIONS = TRUTHS
# The kernel is timed beside attention and causal attention: those need it compiled.
KERNEL_TIMED = set(exercise_timing.KERNEL_CALLS)
EXERCISES = sorted(exercise_timing.INPUTS)


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


@pytest.mark.slow  # times in the sandbox (the fast subset checks FreshInputs without one, below)
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


@pytest.mark.slow  # times in the sandbox (the fast subset checks FreshInputs without one, below)
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


def _fresh(battery: str) -> exercise_timing.FreshInputs:
    draw, solution = exercise_timing.INPUTS[battery]
    return exercise_timing.FreshInputs(
        draw, lambda args: solution(*args), exercise_timing._check, np.random.default_rng(3)
    )


def _ok(value: object) -> CallResult:
    return CallResult("ok", value, None, 0.001)


@pytest.mark.parametrize("battery", sorted(exercise_timing.INPUTS))
def test_each_round_shares_one_new_input_set_checked_against_the_reference(battery: str) -> None:
    fresh = _fresh(battery)
    solution = SOLUTIONS[battery]
    rounds = [["mine", "ref", "kernel"], ["ref", "kernel", "mine"], ["kernel", "mine", "ref"]]
    seen: dict[str, set[bytes]] = {"mine": set(), "ref": set(), "kernel": set()}
    for t in (8, 16):
        for order in rounds:
            given = {who: fresh.for_call(who, t) for who in order}
            args = given[order[0]]
            # Like with like: the boxes of one round get the same inputs.
            assert all(a is args for a in given.values())
            key = b"".join(a.tobytes() for a in args if isinstance(a, np.ndarray))
            for who in order:
                assert key not in seen[who], f"{who} got the same inputs twice"
                seen[who].add(key)
                fresh.check(_ok(solution(*args)), who)  # right answers pass, in any order


@pytest.mark.parametrize("battery", sorted(exercise_timing.INPUTS))
@pytest.mark.parametrize("mine_first", [True, False])
def test_an_output_kept_from_an_earlier_set_is_wrong(battery: str, mine_first: bool) -> None:
    # Checked against the reference's output for the same inputs, whether the learner's code
    # answered before the reference in the round (the check waits) or after it.
    fresh = _fresh(battery)
    solution = SOLUTIONS[battery]
    kept = solution(*fresh.for_call("mine", 8))
    fresh.check(_ok(kept), "mine")
    fresh.check(_ok(solution(*fresh.for_call("ref", 8))), "ref")
    order = ["mine", "ref"] if mine_first else ["ref", "mine"]
    given = [fresh.for_call(who, 8) for who in order]  # both boxes get this round's set
    args = given[0]
    with pytest.raises(StopLadder, match="timed output of your code is wrong") as stop:
        for who in order:
            fresh.check(_ok(kept if who == "mine" else solution(*args)), who)
    assert stop.value.wrong


def test_a_reference_that_disagrees_with_the_solution_is_a_bug_not_a_wrong_answer() -> None:
    fresh = _fresh("attention")
    args = fresh.for_call("ref", 8)
    with pytest.raises(StopLadder, match="the reference solution") as stop:
        fresh.check(_ok(2 * solutions.attention(*args)), "ref")
    assert not stop.value.wrong


def test_drawing_inputs_is_not_counted_in_the_sampling_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])

    def slow_draw(rng: np.random.Generator, t: int) -> tuple[object, ...]:
        now[0] += 5.0  # drawing takes 5 s of the clock
        return (rng.normal(size=t),)

    def slow_truth(args: tuple[object, ...]) -> object:
        now[0] += 7.0  # and the reference's check 7 s
        return args[0]

    fresh = exercise_timing.FreshInputs(
        slow_draw, slow_truth, exercise_timing._check, np.random.default_rng(0)
    )
    start = fresh.clock()
    args = fresh.for_call("ref", 4)
    now[0] += 0.5  # the call itself
    fresh.check(_ok(args[0]), "ref")
    fresh.for_call("ref", 4)
    assert fresh.clock() - start == pytest.approx(0.5)
