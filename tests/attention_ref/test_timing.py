"""Timing reports figures and ratios; the peak is measured once per machine and cached."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from attention_ref import machine as machine_module
from attention_ref import reference, timing
from attention_ref.calling import CallPlan
from attention_ref.discovery import Found
from attention_ref.machine import Machine, this_machine
from attention_ref.sandbox import CallResult
from attention_ref.timing import StopLadder, roofline, sample_interleaved, time_submission

SUBMISSIONS = Path(__file__).parent / "submissions"
FAKE = Machine(
    sgemm_gflops=400.0,
    bandwidth_gbs=20.0,
    blas="openblas",
    core_type="Haswell",
    threads=2,
    cpu="test cpu",
)


def time_at_32(submission: str) -> dict:
    """`time_submission` of submissions/timing/SUBMISSION at T = 32 alone, 3 samples: for what
    stops the ladder or lets it time the size, not for the figures."""
    return time_submission(
        SUBMISSIONS / "timing" / submission,
        "attention",
        "attention",
        ladder=(32,),
        min_samples=3,
        size_budget_s=0.0,
    )


@pytest.fixture
def fake_machine(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def measure() -> Machine:
        calls.append(1)
        return FAKE

    monkeypatch.setattr(machine_module, "measure", measure)
    return calls


def test_the_peak_is_measured_once_and_then_read_from_the_cache(tmp_path, fake_machine) -> None:
    assert this_machine(tmp_path) == FAKE
    assert this_machine(tmp_path) == FAKE
    assert len(fake_machine) == 1
    (tmp_path / "machine.json").write_text("{not json")
    assert this_machine(tmp_path) == FAKE  # a damaged cache is measured again
    assert len(fake_machine) == 2


@pytest.mark.parametrize(
    "damage",
    ["[1, 2]", '"text"', "[" * 100_000, '{"key": 1, "machine": [1]}', "link to /dev/zero"],
)
def test_any_damaged_cache_is_measured_again(tmp_path, fake_machine, damage: str) -> None:
    # The cache lives in the user's cache folder ($XDG_CACHE_HOME): a list or deep nesting in
    # it was an internal error in `submit` and `bench`, a link to /dev/zero a read without end.
    cache = tmp_path / "machine.json"
    if damage.startswith("link"):
        cache.symlink_to("/dev/zero")
    else:
        cache.write_text(damage)
    assert this_machine(tmp_path) == FAKE
    assert len(fake_machine) == 1


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_a_timing_report_has_figures_and_ratios_for_each_size(
    tmp_path, monkeypatch, fake_machine
) -> None:
    monkeypatch.setattr("attention_ref.timing.this_machine", lambda: FAKE)
    said: list[str] = []
    report = time_submission(
        SUBMISSIONS / "good" / "five_lines.py",
        "attention",
        "attention",
        ladder=(32, 64),
        progress=said.append,
        min_samples=5,
        size_budget_s=0.0,  # each size ends at its 5 samples: the figures, not their precision
    )
    assert [row["T"] for row in report["sizes"]] == [32, 64]
    for row in report["sizes"]:
        assert row["samples"] >= 5 and row["median_s"] > 0 and row["gflops"] > 0
        assert row["numpy_s"] > 0 and row["vs_numpy"] > 0 and row["share_of_peak"] > 0
        assert row["iqr_s"] >= 0 and row["spread_s"] >= row["iqr_s"]
    assert report["peak_gflops"] == 400.0
    assert report["stopped"] == "every size of the ladder was timed"
    assert not report["wrong_output"]
    assert "memory-bound" in report["roofline"] or "compute-bound" in report["roofline"]
    # Progress is shown while timing: each size, and the kernel being loaded or compiled.
    assert any("T = 64" in line for line in said) and any("Numba kernel" in line for line in said)


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_garbage_at_the_timing_sizes_stops_the_ladder_as_a_wrong_output(fake_machine) -> None:
    report = time_submission(
        SUBMISSIONS / "timing" / "garbage_when_large.py",
        "attention",
        "attention",
        ladder=(32, 64, 128),
        min_samples=3,
        size_budget_s=0.0,  # what is tested is where the ladder stops, not the figures
    )
    assert [row["T"] for row in report["sizes"]] == [32]
    assert report["wrong_output"] and "T = 64" in report["stopped"]


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_no_two_timed_calls_get_the_same_inputs(fake_machine) -> None:
    # Not a timing assertion: the submission raises when inputs repeat, so a ladder that gives
    # every call fresh inputs times every size, and one that repeats them stops at the first.
    report = time_at_32("memoizes_by_input.py")
    assert [row["T"] for row in report["sizes"]] == [32], report["stopped"]


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
@pytest.mark.skipif(os.geteuid() != 0, reason="counting a private uid's processes needs root")
def test_processes_left_running_stop_the_ladder(fake_machine) -> None:
    report = time_submission(
        SUBMISSIONS / "timing" / "leaves_a_spinner.py",
        "attention",
        "attention",
        ladder=(32, 64, 128),
        min_samples=3,
        size_budget_s=0.0,  # what is tested is where the ladder stops, not the figures
    )
    assert [row["T"] for row in report["sizes"]] == [32]
    assert "processes running" in report["stopped"] and not report["wrong_output"]


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_reference_identical_code_times_like_the_reference(tmp_path, fake_machine) -> None:
    """A statistical property, not a stopwatch: the same code in the same kind of process, its
    calls interleaved with the reference's, is neither much faster nor much slower. The band is
    wide on purpose (this machine is shared and noisy); benchmarks/submit.py --ratio-runs 5
    measures the 0.8-1.25 band of docs/spec.md and prints it."""
    copy = tmp_path / "mine.py"
    copy.write_text(Path(reference.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    # At least 15 paired samples per size, for up to 1 s (not the product's 3 s): a median of
    # that many neighbouring ratios already lies well inside the band.
    report = time_submission(
        copy, "attention", "attention", ladder=(64, 256), min_samples=15, size_budget_s=1.0
    )
    ratios = [row["vs_numpy"] for row in report["sizes"]]
    assert len(ratios) == 2
    assert all(0.5 < ratio < 2.0 for ratio in ratios), ratios


def test_roofline_compares_intensity_with_the_machine_balance() -> None:
    # balance 400/20 = 20 FLOP/byte; at T = 2048, d = 64 storing the scores gives ~15.5
    assert "memory-bound" in roofline(2048, FAKE)
    fast_memory = Machine(400.0, 400.0, "b", "c", 1, "cpu")
    assert "compute-bound" in roofline(2048, fast_memory)


def _fake_calls(failing: str, from_call: int) -> tuple[list[str], Callable[[str], CallResult]]:
    """A call that answers in 1 ms, except `failing`, which times out from its `from_call`-th
    call on; and the log of who was called."""

    called: list[str] = []

    def call(who: str) -> CallResult:
        called.append(who)
        if who == failing and called.count(who) >= from_call:
            return CallResult("timeout", None, "took longer than 10 s", None)
        return CallResult("ok", None, None, 0.001)

    return called, call


def _check(result: CallResult, who: str) -> None:
    if result.status != "ok":
        raise StopLadder(f"{who} ended with {result.status}")


def _sample(
    call: Callable[[str], CallResult], optional: Callable[[str, str], None] | None
) -> dict[str, list[float]]:
    """Five timed rounds of your code, the reference and the kernel at T = 128."""
    return sample_interleaved(
        ["mine", "ref", "kernel"],
        call,
        _check,
        128,
        60.0,
        lambda _text: None,
        min_samples=5,
        max_samples=5,
        optional=optional,
    )


@pytest.mark.parametrize("from_call", [1, 4])  # in the warm-up, or among the samples
def test_a_kernel_that_fails_is_left_out_and_the_others_are_still_timed(from_call: int) -> None:
    called, call = _fake_calls("kernel", from_call)
    dropped: list[tuple[str, str]] = []
    times = _sample(call, lambda who, reason: dropped.append((who, reason)))
    assert set(times) == {"mine", "ref"}
    assert len(times["mine"]) == len(times["ref"]) == 5
    assert dropped == [("kernel", "kernel ended with timeout")]
    assert called.count("kernel") == from_call  # never called again once it failed


def test_without_optional_a_failing_kernel_still_ends_the_ladder() -> None:
    _, call = _fake_calls("kernel", 1)
    with pytest.raises(StopLadder):
        _sample(call, None)


@pytest.mark.parametrize("failing", ["mine", "ref"])
def test_your_code_or_the_reference_failing_ends_the_ladder_even_with_optional(
    failing: str,
) -> None:
    _, call = _fake_calls(failing, 2)
    with pytest.raises(StopLadder):
        _sample(call, lambda who, reason: None)


@pytest.mark.slow
@pytest.mark.usefixtures("flash_kernel")  # the kernel is timed beside the code
def test_an_output_replayed_by_shape_is_a_wrong_output(fake_machine) -> None:
    # Right on its first call, then the same array whatever the inputs: the fresh inputs of the
    # next calls have another output, so the ladder stops on a wrong output, never times it.
    report = time_at_32("replays_by_shape.py")
    assert report["sizes"] == [] and report["wrong_output"], report["stopped"]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_fresh_input_set_is_checked_against_its_own_output(causal: bool, dtype: type) -> None:
    name = "causal_attention" if causal else "attention"
    seen = set()
    for target, function in (("attention", name), ("softmax", "softmax")):
        found = Found(function, target, (), 0)
        plan = CallPlan(found, float32=dtype is np.float32)
        assert found.causal_by_name == causal or target == "softmax"
        fresh = timing._submission_inputs(target, plan, 7)

        def right(args: tuple, target: str = target) -> np.ndarray:
            return np.asarray(
                reference.attention(*args, causal=causal)
                if target == "attention"
                else reference.stable_softmax(args[0])
            )

        kept = None
        for _ in range(4):
            args = fresh.for_call("ref", 48)
            assert fresh.for_call("mine", 48) is args and all(a.dtype == dtype for a in args)
            seen.add(b"".join(a.tobytes() for a in args))
            fresh.check(CallResult("ok", right(args), None, 0.001), "ref")
            fresh.check(CallResult("ok", right(args), None, 0.001), "mine")
            if kept is not None:  # the output of an earlier set is a wrong output
                with pytest.raises(StopLadder):
                    fresh.check(CallResult("ok", kept, None, 0.001), "mine")
            kept = right(args)
    assert len(seen) == 8  # no two calls got the same inputs


@pytest.mark.parametrize("t", [64, 128, 256, 512])
def test_each_process_comes_first_in_some_rounds(t: int) -> None:
    # The first call of a round follows the drawing of the round's fresh inputs, which slows it:
    # with two processes, "never the same one twice in a row" made one of them first in every
    # round, and identical code timed 0.6-0.8 or 1.1-1.3 times the reference at a given size.
    called: list[str] = []

    def call(who: str) -> CallResult:
        called.append(who)
        return CallResult("ok", None, None, 0.001)

    sample_interleaved(
        ["mine", "ref"], call, _check, t, 60.0, lambda _text: None, min_samples=20, max_samples=20
    )
    firsts = called[2 * 2 :: 2]  # after the two warm-up rounds, the first call of each round
    assert len(firsts) == 20
    assert 5 <= firsts.count("mine") <= 15
