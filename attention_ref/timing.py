"""Time a passing submission on this CPU, like with like, next to the NumPy reference.

The learner's code and the NumPy reference (`reference.py` itself, loaded as a submission) run
in the same kind of sandboxed process, with the same thread count (one), called through the same
channel with the same inputs, and their samples are interleaved A B B A ... so a burst of load
on this shared machine hits both. Each size starts with warm-up calls that are not counted
(first calls, Numba compiling the learner's code). Every timed output is checked against the
reference: code that answers the battery and returns garbage at the timing sizes is stopped
and reported, and so is code that leaves processes running to slow the reference down.

The Numba kernel is timed in this process (one thread, no channel); its column says so.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref import reference
from attention_ref.calling import CallPlan
from attention_ref.discovery import Found
from attention_ref.machine import Machine, this_machine
from attention_ref.reference import attention_flops
from attention_ref.sandbox import CallResult, Limits, Sandbox
from attention_ref.sandbox.processes import processes_in_session, processes_of_uid

LADDER = (64, 128, 256, 512, 1024, 2048)
D = 64
WARMUP = 2
MIN_SAMPLES = 15
MAX_SAMPLES = 201
SIZE_BUDGET_S = 3.0  # time spent sampling one size, once MIN_SAMPLES are in
TOTAL_BUDGET_S = 30.0
Progress = Callable[[str], None]


class _Stop(Exception):
    """The ladder stops here, for the reason given; `wrong`: the code gave a wrong output."""

    def __init__(self, reason: str, *, wrong: bool = False) -> None:
        super().__init__(reason)
        self.wrong = wrong


def time_submission(
    path: Path,
    function: str,
    target: str,
    *,
    plan: CallPlan | None = None,
    limits: Limits | None = None,
    budget_s: float = TOTAL_BUDGET_S,
    ladder: tuple[int, ...] = LADDER,
    progress: Progress | None = None,
    seed: int = 0,
    min_samples: int = MIN_SAMPLES,
) -> dict[str, Any]:
    """Median times per size, `vs_numpy` (yours / the reference's, same process kind), spread,
    and why the ladder stopped. `plan` is how grading called the code (form, mask, d_k)."""
    say = progress or (lambda text: None)
    plan = plan or CallPlan(
        Found(function, "attention" if target == "attention" else "softmax", (), 0)
    )
    machine = this_machine()
    kernel = _kernel(target, say)
    reference_name = "attention" if target == "attention" else "stable_softmax"
    sizes: list[dict[str, Any]] = []
    stopped = "every size of the ladder was timed"
    wrong_output = False
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    say("timing: starting your code and the NumPy reference in two sandboxes")
    with (
        Sandbox(path, function, limits or Limits()) as mine,
        Sandbox(Path(reference.__file__), reference_name, limits or Limits()) as ref,
    ):
        baseline = len(_processes(mine))
        pinned = _same_core(mine, ref)
        for t in ladder:
            left = budget_s - (time.perf_counter() - started)
            if left <= 0:
                stopped = f"the time budget ({budget_s:g} s) ran out before T = {t}"
                break
            try:
                row = _time_size(
                    mine,
                    ref,
                    plan,
                    target,
                    t,
                    rng,
                    left,
                    kernel,
                    machine,
                    say,
                    min_samples,
                    baseline,
                )
            except _Stop as stop:
                stopped, wrong_output = str(stop), stop.wrong
                break
            sizes.append(row)
            spent = time.perf_counter() - started
            # The next size costs about 4-8 times this one (T² scores, T² d products).
            estimate = 6 * (row["median_s"] + row["numpy_s"]) * (WARMUP + min_samples)
            if t != ladder[-1] and estimate > budget_s - spent:
                stopped = (
                    f"the next size would take about {estimate:.0f} s, more than the "
                    f"{max(budget_s - spent, 0):.0f} s left of the budget"
                )
                break
    return {
        "d": D,
        "dtype": "float32",
        "sizes": sizes,
        "stopped": stopped,
        "wrong_output": wrong_output,
        "peak_gflops": machine.sgemm_gflops,
        "bandwidth_gbs": machine.bandwidth_gbs,
        "machine": machine.describe(),
        "roofline": roofline(sizes[-1]["T"], machine) if sizes and target == "attention" else None,
        "measured": (
            "wall time around each call seen from outside the sandbox (inputs sent, outputs "
            "received), your code and the NumPy reference interleaved in the same kind of "
            "sandboxed process with one thread each, on one core; medians after warm-up calls; "
            "vs_numpy is the median of the ratios of neighbouring calls"
        ),
        "kernel_measured": "the Numba kernel in attnquiz's own process, one thread, no channel",
        "same_core": pinned,
    }


def _processes(box: Sandbox) -> list[int]:
    """The sandbox's processes: every one of its private uid (daemons that left its session
    too), or its session's when it has no private uid."""
    if box.uid is not None:
        return processes_of_uid(box.uid)
    return processes_in_session(box.pid) if box.pid else []


def _same_core(*boxes: Sandbox) -> bool:
    """Pin both sandboxes to one core, so neither runs on a core another job keeps busy."""
    import os

    try:
        core = max(os.sched_getaffinity(0))
        for box in boxes:
            for pid in processes_in_session(box.pid) if box.pid else []:
                os.sched_setaffinity(pid, {core})
    except OSError:
        return False
    return True


def _inputs(target: str, plan: CallPlan, t: int, rng: np.random.Generator) -> tuple[Any, ...]:
    if target == "softmax":
        shape: tuple[int, ...] = (t,) if plan.rank == 1 else (t, t)
        return (rng.normal(size=shape).astype(np.float32),)
    lead = (1,) * max(plan.rank - 2, 0)
    return tuple(rng.normal(size=(*lead, t, D)).astype(np.float32) for _ in range(3))


def _call_mine(box: Sandbox, plan: CallPlan, args: tuple[Any, ...]) -> CallResult:
    masks = plan.mask_attempts(args[0].shape[-2], args[1].shape[-2], False) if len(args) > 1 else []
    return plan.call(box, args, mask=masks[0] if masks else None)


def _time_size(
    mine: Sandbox,
    ref: Sandbox,
    plan: CallPlan,
    target: str,
    t: int,
    rng: np.random.Generator,
    left: float,
    kernel: Callable[..., Any] | None,
    machine: Machine,
    say: Progress,
    min_samples: int,
    baseline: int,
) -> dict[str, Any]:
    args = _inputs(target, plan, t, rng)
    expected = np.asarray(
        reference.attention(*args) if target == "attention" else reference.stable_softmax(args[0])
    )
    say(f"timing T = {t}: warming up")
    for _ in range(WARMUP):
        _check(_call_mine(mine, plan, args), expected, t)
        _check(ref.call(*args), expected, t)
    if len(_processes(mine)) > baseline:
        raise _Stop(
            f"stopped at T = {t}: your code left processes running, which would slow the "
            "reference down and skew the figures"
        )
    times: dict[str, list[float]] = {"mine": [], "ref": []}
    size_started = time.perf_counter()
    while len(times["mine"]) < MAX_SAMPLES:
        elapsed = time.perf_counter() - size_started
        if len(times["mine"]) >= min_samples and (elapsed > min(SIZE_BUDGET_S, left)):
            break
        if elapsed > left and times["mine"]:
            break
        order = ("mine", "ref") if len(times["mine"]) % 2 == 0 else ("ref", "mine")
        for who in order:
            result = _call_mine(mine, plan, args) if who == "mine" else ref.call(*args)
            _check(result, expected, t)
            assert result.seconds is not None
            times[who].append(result.seconds)
        if len(times["mine"]) % 5 == 0:
            say(f"timing T = {t}: {len(times['mine'])} samples each")
    kernel_s = _kernel_seconds(kernel, args, len(times["mine"]))
    return _row(target, t, times["mine"], times["ref"], kernel_s, machine)


def _check(result: CallResult, expected: np.ndarray, t: int) -> None:
    if result.status != "ok" or result.seconds is None:
        raise _Stop(f"stopped at T = {t}: the call ended with {result.status}: {result.error}")
    value = result.value[0] if isinstance(result.value, tuple) else result.value
    given = np.asarray(value, dtype=np.float64)
    if given.size != expected.size:
        raise _Stop(
            f"stopped at T = {t}: the timed output has the wrong shape {given.shape}", wrong=True
        )
    with np.errstate(invalid="ignore"):
        ok = np.allclose(given.reshape(expected.shape), expected, rtol=1e-3, atol=1e-4)
    if not ok:
        raise _Stop(
            f"stopped at T = {t}: the timed output is wrong (not the reference's values)",
            wrong=True,
        )


def _kernel(target: str, say: Progress) -> Callable[..., Any] | None:
    if target != "attention":
        return None
    try:
        from attention_ref.kernel import flash_attention
    except ImportError:
        return None
    say("timing: loading the Numba kernel (the first run on this machine compiles it: ~15 s)")
    started = time.perf_counter()
    tiny = np.zeros((4, D), dtype=np.float32)
    flash_attention(tiny, tiny, tiny)  # compiled now, or loaded from Numba's cache
    say(f"timing: the Numba kernel is ready ({time.perf_counter() - started:.1f} s)")
    return flash_attention


def _kernel_seconds(kernel: Callable[..., Any] | None, args: Any, samples: int) -> float | None:
    if kernel is None:
        return None
    import numba
    from threadpoolctl import threadpool_limits

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(1):
            kernel(*args)
            times = []
            for _ in range(max(5, min(samples, 15))):
                start = time.perf_counter()
                kernel(*args)
                times.append(time.perf_counter() - start)
    finally:
        numba.set_num_threads(previous)
    return statistics.median(times)


def _row(
    target: str,
    t: int,
    mine: list[float],
    ref: list[float],
    kernel_s: float | None,
    machine: Machine,
) -> dict[str, Any]:
    median = statistics.median(mine)
    numpy_s = statistics.median(ref)
    flops = attention_flops(t, t, D) if target == "attention" else 5 * t * t
    gflops = flops / median / 1e9
    quartiles = statistics.quantiles(mine, n=4) if len(mine) >= 2 else [median, median, median]
    return {
        "T": t,
        "median_s": median,
        "min_s": min(mine),
        "spread_s": max(mine) - min(mine),
        "iqr_s": quartiles[2] - quartiles[0],
        "samples": len(mine),
        "gflops": gflops,
        "numpy_s": numpy_s,
        "numpy_min_s": min(ref),
        "kernel_s": kernel_s,
        # How many times slower than the reference (1.0 = as fast; below 1 = faster): the
        # median over rounds of (your call / the reference's call next to it), which a burst
        # of load on the machine disturbs far less than a ratio of two medians.
        "vs_numpy": statistics.median([a / b for a, b in zip(mine, ref, strict=False)]),
        "vs_kernel": median / kernel_s if kernel_s else None,
        "share_of_peak": gflops / machine.sgemm_gflops if target == "attention" else None,
    }


def roofline(t: int, machine: Machine) -> str:
    """Where naive attention (which writes and rereads the T×T scores) sits on the roofline."""
    flops = attention_flops(t, t, D)
    # float32: read Q, K, V, write the output, and the T×T scores written and read back twice
    # (scores, then weights).
    moved = 4 * (4 * t * D + 4 * t * t)
    intensity = flops / moved
    bound = "compute-bound" if intensity > machine.balance else "memory-bound"
    return (
        f"roofline at T = {t}, d = {D}: code that stores the T×T scores does about "
        f"{intensity:.1f} FLOP per byte; this machine's balance is {machine.balance:.1f} "
        f"FLOP/byte ({machine.sgemm_gflops:.0f} GFLOP/s ÷ {machine.bandwidth_gbs:.0f} GB/s), so "
        f"such code is {bound}; a tiled (flash) kernel never stores them."
    )
