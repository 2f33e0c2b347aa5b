"""The two rules both timing ladders (`submit`'s and an exercise's) keep at every size, in one
place (`attention_ref.timing.TimingBoxes`): processes the learner's code left running stop the
ladder; a failing Numba kernel is left out with a note, at this size and the later ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from attention_ref import timing
from attention_ref.sandbox import CallResult
from attention_ref.timing import KERNEL, StopLadder, TimingBoxes


def _sample(
    boxes: dict[str, Any],
    notes: list[str],
    *,
    failing: str | None = None,
    on_call: Callable[[str], None] = lambda who: None,
) -> dict[str, list[float]]:
    def call(who: str) -> CallResult:
        on_call(who)
        if who == failing:
            return CallResult("timeout", None, "took longer than 10 s", None)
        return CallResult("ok", None, None, 0.001)

    def check(result: CallResult, who: str) -> None:
        if result.status != "ok":
            raise StopLadder(f"{who} ended with {result.status}")

    timed = TimingBoxes(boxes, notes, lambda _text: None, min_samples=3)
    assert timed.baseline == 1 and timed.same_core
    return timed.sample(128, 60.0, call, check)


@pytest.fixture
def processes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The processes the learner's sandbox has now (one, its own, to begin with)."""
    running = [100]
    monkeypatch.setattr(timing, "sandbox_processes", lambda box, zombies=False: list(running))
    monkeypatch.setattr(timing, "pin_to_one_core", lambda *boxes: True)
    return running


def test_a_process_left_running_after_the_warm_up_stops_the_ladder(processes) -> None:
    def leaves_one_running(who: str) -> None:  # the learner's code starts a process once
        if who == "mine" and len(processes) == 1:
            processes.append(101)

    with pytest.raises(StopLadder, match="left processes running") as stop:
        _sample({"mine": object(), "ref": object()}, [], on_call=leaves_one_running)
    assert not stop.value.wrong  # not a wrong output: the code is stopped, not failed


def test_no_process_left_times_every_box(processes) -> None:
    boxes = {"mine": object(), "ref": object(), KERNEL: object()}
    times = _sample(boxes, [])
    assert set(times) == {"mine", "ref", KERNEL} and len(times["mine"]) >= 3


def test_a_failing_kernel_is_left_out_here_and_at_later_sizes_with_a_note(processes) -> None:
    boxes = {"mine": object(), "ref": object(), KERNEL: object()}
    notes: list[str] = []
    times = _sample(boxes, notes, failing=KERNEL)
    assert set(times) == {"mine", "ref"}
    assert set(boxes) == {"mine", "ref"}  # the next size does not time it
    assert notes == ["the Numba kernel was left out of the timing (kernel ended with timeout)"]
