"""Time a passing submission on this CPU, next to the NumPy reference and the Numba kernel.

The submission runs in the sandbox, so its time is measured by the parent around each call (it
includes sending the inputs and receiving the output, a few hundred microseconds at T = 2048,
d = 64). The references run in this process on the same inputs. Sizes climb a ladder while
the code can afford them, so a slow solution still gets a figure at a small T.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref.machine import Machine, this_machine
from attention_ref.reference import attention, attention_flops, stable_softmax
from attention_ref.sandbox import Limits, Sandbox

LADDER = (64, 128, 256, 512, 1024, 2048)
D = 64
SAMPLES = 7
SIZE_BUDGET_S = 2.5  # at most this much time measuring one size
TOTAL_BUDGET_S = 10.0


def time_submission(
    path: Path,
    function: str,
    target: str,
    *,
    limits: Limits | None = None,
    budget_s: float = TOTAL_BUDGET_S,
    ladder: tuple[int, ...] = LADDER,
) -> dict[str, Any]:
    machine = this_machine()
    kernel = _kernel()
    sizes = []
    started = time.perf_counter()
    with Sandbox(path, function, limits or Limits()) as box:
        for t in ladder:
            left = budget_s - (time.perf_counter() - started)
            if left <= 0:
                break
            args = _inputs(target, t)
            first = box.call(*args)  # warm-up, and a first figure for slow code
            if first.status != "ok" or first.seconds is None:
                break
            samples = [first.seconds]
            size_started = time.perf_counter()
            while len(samples) < SAMPLES and time.perf_counter() - size_started < min(
                SIZE_BUDGET_S, left
            ):
                result = box.call(*args)
                if result.status != "ok" or result.seconds is None:
                    break
                samples.append(result.seconds)
            sizes.append(_row(target, t, samples, args, machine, kernel))
            # Do not start a size that would take longer than the budget left.
            if min(samples) * 4.5 > budget_s - (time.perf_counter() - started):
                break
    return {
        "d": D,
        "dtype": "float32",
        "sizes": sizes,
        "peak_gflops": machine.sgemm_gflops,
        "bandwidth_gbs": machine.bandwidth_gbs,
        "machine": machine.describe(),
        "roofline": roofline(sizes[-1]["T"], machine) if sizes and target == "attention" else None,
        "measured": "wall time around each call, from outside the sandbox, passing arrays included",
    }


def _inputs(target: str, t: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(t)
    if target == "softmax":
        return (rng.normal(size=(t, t)).astype(np.float32),)
    return tuple(rng.normal(size=(t, D)).astype(np.float32) for _ in range(3))


def _best_of(run: Callable[[], Any], samples: int = 5) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _kernel() -> Callable[..., Any] | None:
    try:
        from attention_ref.kernel import flash_attention
    except ImportError:
        return None
    return flash_attention


def _row(
    target: str,
    t: int,
    samples: list[float],
    args: tuple[np.ndarray, ...],
    machine: Machine,
    kernel: Callable[..., Any] | None,
) -> dict[str, Any]:
    median = statistics.median(samples)
    flops = attention_flops(t, t, D) if target == "attention" else 5 * t * t
    if target == "attention":
        numpy_s = _best_of(lambda: attention(*args))
        kernel_s = None
        if kernel is not None:
            kernel(*args)  # compiles once per machine (cached), then runs warm
            kernel_s = _best_of(lambda: kernel(*args))
    else:
        numpy_s = _best_of(lambda: stable_softmax(args[0]))
        kernel_s = None
    gflops = flops / median / 1e9
    return {
        "T": t,
        "median_s": median,
        "min_s": min(samples),
        "spread_s": max(samples) - min(samples),
        "samples": len(samples),
        "gflops": gflops,
        "numpy_s": numpy_s,
        "kernel_s": kernel_s,
        # How many times slower than the reference (1.0 = as fast; below 1 = faster).
        "vs_numpy": median / numpy_s,
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
