"""Red team, fourth pass, on timing: a figure must be the code's own, on one core, in its calls.

Code that works where it is not timed (a process started after the warm-up calls, a thread or a
process that computes between its calls, work spread over more cores than the one it was given)
would slow the references down or hide its own cost; the ladder stops instead of reporting it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from attention_ref.sandbox import CallResult
from attention_ref.timing import StopLadder, TimingBoxes
from tests.attention_ref.test_timing import fake_machine, time_at_32  # noqa: F401 (a fixture)

# Ready at once; on "go" it computes for 0.3 s of its own CPU time, says "done", and waits.
BURNER = """
import sys, time
print("ready", flush=True)
if sys.stdin.readline().strip() == "go":
    start = time.process_time()
    while time.process_time() - start < {burn}:
        pass
print("done", flush=True)
sys.stdin.readline()
"""


class _Box:
    """What TimingBoxes reads of a sandbox: its first process (here leading its own session)."""

    uid = None

    def __init__(self, pid: int) -> None:
        self.pid = pid


def _sample_with_a_burner(burn: float) -> dict[str, list[float]]:
    """Five timed rounds in which `mine` answers in 1 ms and, between its first and its last
    timed call, its process computes for `burn` s."""
    with subprocess.Popen(
        [sys.executable, "-c", BURNER.format(burn=burn)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as burner:
        assert burner.stdin is not None and burner.stdout is not None
        try:
            assert burner.stdout.readline().strip() == "ready"
            return _sample(burner)
        finally:
            burner.kill()


def _sample(burner: subprocess.Popen[str]) -> dict[str, list[float]]:
    assert burner.stdin is not None and burner.stdout is not None
    boxes = {"mine": _Box(burner.pid), "ref": _Box(os.getpid())}
    timed = TimingBoxes(boxes, [], lambda _t: None, min_samples=5, size_budget_s=0.0)  # type: ignore[arg-type]
    calls: list[str] = []

    def call(who: str) -> CallResult:
        calls.append(who)
        mine = calls.count("mine")
        if who == "mine" and mine == 3:  # the first timed call: it starts to compute
            burner.stdin.write("go\n")
            burner.stdin.flush()
        if who == "mine" and mine == 7:  # the last: it has computed by now
            assert burner.stdout.readline().strip() == "done"
        return CallResult("ok", None, None, 0.001)

    return timed.sample(128, 60.0, call, lambda result, who: None)


def test_code_that_computes_between_its_calls_stops_the_ladder() -> None:
    with pytest.raises(StopLadder, match="more CPU time than its calls took"):
        _sample_with_a_burner(0.3)


def test_code_idle_between_its_calls_is_timed() -> None:
    times = _sample_with_a_burner(0.0)
    assert len(times["mine"]) == 5


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_a_process_started_after_the_warm_up_stops_the_ladder(fake_machine) -> None:  # noqa: F811
    report = time_at_32("forks_after_warmup.py")
    assert report["sizes"] == [], report["stopped"]
    assert "processes running" in report["stopped"] and not report["wrong_output"]


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_no_two_timed_calls_share_their_queries_and_keys(fake_machine) -> None:  # noqa: F811
    # The submission raises when Q and K come back: a ladder that varies only V (by a shift
    # whose effect on the output is known) stops at its first size; fresh draws time it.
    report = time_at_32("keeps_by_queries_and_keys.py")
    assert [row["T"] for row in report["sizes"]] == [32], report["stopped"]
