"""Time a passing exercise on this CPU against the exercise's own reference solution.

Like `attention_ref.timing` for `submit`: the learner's function and the reference solution run
in the same kind of sandboxed process (the same appended caller, one thread, one core), called
with the same inputs, interleaved in a fresh order each round after warm-up calls that are not
counted; every timed output is checked. Where a fast kernel computes the same thing (attention
and causal attention) it is timed beside them in a third sandbox.

No box is ever called twice with the same inputs (`attention_ref.timing.FreshInputs`): each
round's inputs are drawn afresh, and every output is checked against the reference solution's
for the same inputs (itself checked against `solutions` once per size). For multi-head attention
and the backward pass no cheap exact transform of one input set would do: the backward pass
does not even change when V is shifted.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import attention_ref.exercises.solutions as solutions
from attention_ref.exercises.grader import ENTRY, wrapped_source
from attention_ref.grading import COMPLEX_MESSAGE, real_values
from attention_ref.sandbox import CallResult, Limits, Sandbox
from attention_ref.sandbox.results import NotAnArray, as_returned
from attention_ref.timing import (
    KERNEL,
    Draw,
    FreshInputs,
    StopLadder,
    TimingBoxes,
    compiled_kernel,
    kernel_sandbox,
    paired_ratio,
)

LADDER = (128, 256, 512, 1024)
MIN_SAMPLES = 9
SIZE_BUDGET_S = 2.0
TOTAL_BUDGET_S = 20.0
D = 64
Progress = Callable[[str], None]


def _qkv(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
    return tuple(rng.normal(size=(t, D)) for _ in range(3))


def _one_square(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
    return (rng.normal(size=(t, t)),)


def _mha(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
    d_model = 4 * D
    weights = [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    return (rng.normal(size=(t, d_model)), *weights, 4)


def _backward(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
    return (*_qkv(rng, t), rng.normal(size=(t, D)))


# Each battery's timing inputs: how they are drawn, and the trusted solution that gives their
# output (here once per size, to check the reference solution's sandbox; see FreshInputs).
INPUTS: dict[str, tuple[Draw, Callable[..., Any]]] = {
    "stable-softmax": (_one_square, solutions.softmax),
    "attention": (_qkv, solutions.attention),
    "causal-attention": (_qkv, solutions.causal_attention),
    "multi-head-attention": (_mha, solutions.multi_head_attention),
    "attention-backward": (_backward, solutions.attention_backward),
    "tiled-attention": (_qkv, solutions.tiled_attention),
}
# Exercises the Numba kernel also computes (square inputs: both causal alignments agree).
KERNEL_CALLS: dict[str, dict[str, bool]] = {
    "attention": {},
    "causal-attention": {"causal": True},
}


def time_exercise(
    source: str,
    shown_as: Path,
    battery: str,
    function: str,
    reference_source: str,
    reference_function: str,
    *,
    limits: Limits | None = None,
    progress: Progress | None = None,
    budget_s: float | None = None,
    ladder: tuple[int, ...] | None = None,
    seed: int = 0,
    min_samples: int | None = None,
    size_budget_s: float | None = None,
) -> dict[str, Any] | None:
    """Times per size and `vs_reference` (yours / the reference solution's); None when the
    battery has no timing inputs (a learner's own battery). What is not given comes from this
    module's LADDER, TOTAL_BUDGET_S, MIN_SAMPLES and SIZE_BUDGET_S, read at the call."""
    inputs = INPUTS.get(battery)
    if inputs is None:
        return None
    budget_s = TOTAL_BUDGET_S if budget_s is None else budget_s
    ladder = LADDER if ladder is None else ladder
    min_samples = MIN_SAMPLES if min_samples is None else min_samples
    size_budget_s = SIZE_BUDGET_S if size_budget_s is None else size_budget_s
    say = progress or (lambda _text: None)
    limits = limits or Limits()
    notes: list[str] = []
    kernel_files = compiled_kernel("attention", say) if battery in KERNEL_CALLS else None
    rng = np.random.default_rng(seed)
    sizes: list[dict[str, Any]] = []
    stopped = "every size of the ladder was timed"
    wrong = False
    with tempfile.TemporaryDirectory(prefix="attnquiz-timing-") as folder:
        mine_path = Path(folder) / "mine" / (shown_as.stem + ".py")
        ref_path = Path(folder) / "reference" / "reference_solution.py"
        for path, text, name in (
            (mine_path, source, function),
            (ref_path, reference_source, reference_function),
        ):
            path.parent.mkdir()
            path.write_text(wrapped_source(text, name), encoding="utf-8")
        say("timing: starting your code and the reference solution in their sandboxes")
        with (
            Sandbox(mine_path, ENTRY, limits) as mine,
            Sandbox(ref_path, ENTRY, limits) as ref,
            kernel_sandbox(kernel_files, limits, notes) as kernel,
        ):
            boxes = {"mine": mine, "ref": ref, **({KERNEL: kernel} if kernel else {})}
            timed = TimingBoxes(
                boxes, notes, say, min_samples=min_samples, size_budget_s=size_budget_s
            )
            # The budget is for sampling: starting the sandboxes (and a kernel that has to be
            # compiled on a busy machine) does not use it up, nor does drawing inputs.
            draw, solution = inputs
            fresh = FreshInputs(draw, lambda args: solution(*args), _check, rng)
            started = fresh.clock()
            for t in ladder:
                left = budget_s - (fresh.clock() - started)
                if left <= 0 and sizes:  # the first size is always timed
                    stopped = f"the time budget ({budget_s:g} s) ran out before T = {t}"
                    break
                try:
                    sizes.append(_time_size(timed, battery, fresh, t, left))
                except StopLadder as stop:
                    stopped, wrong = str(stop), stop.wrong
                    break
    return {
        "sizes": sizes,
        "stopped": stopped,
        "wrong_output": wrong,
        "same_core": timed.same_core,
        "notes": notes,
        "measured": (
            "wall time around each call seen from outside the sandbox, your code and the "
            "exercise's reference solution (and the Numba kernel where it computes the same) "
            "interleaved in the same kind of sandboxed process, one thread each, on one core; "
            "medians after warm-up calls; vs_reference is the median of the ratios of "
            "neighbouring calls"
        ),
    }


def _time_size(
    timed: TimingBoxes,
    battery: str,
    fresh: FreshInputs,
    t: int,
    left: float,
) -> dict[str, Any]:
    def call(who: str) -> CallResult:
        args = fresh.for_call(who, t)
        if who == KERNEL:
            return timed.boxes[who].call(*args, **KERNEL_CALLS[battery])
        return timed.boxes[who].call(*args)

    times = timed.sample(t, left, call, lambda result, who: fresh.check(result, who), fresh.clock)
    mine = times["mine"]
    return {
        "T": t,
        "median_s": statistics.median(mine),
        "min_s": min(mine),
        "spread_s": max(mine) - min(mine),
        "samples": len(mine),
        "reference_s": statistics.median(times["ref"]),
        "vs_reference": paired_ratio(mine, times["ref"]),
        "kernel_s": statistics.median(times[KERNEL]) if KERNEL in times else None,
        "vs_kernel": paired_ratio(mine, times[KERNEL]) if KERNEL in times else None,
    }


def _check(result: CallResult, expected: Any, t: int, who: str) -> None:
    whose = {"mine": "your code", "ref": "the reference solution", "kernel": "the kernel"}[who]
    if result.status != "ok" or result.seconds is None:
        raise StopLadder(f"stopped at T = {t}: {whose} ended with {result.status}: {result.error}")
    wanted = expected if isinstance(expected, tuple) else (expected,)
    value = as_returned(result.value, np.shape(wanted[0]))
    outputs = value if isinstance(value, tuple) else (value,)
    odd = next((v for v in outputs[: len(wanted)] if isinstance(v, NotAnArray)), None)
    if odd is not None:
        raise StopLadder(f"stopped at T = {t}: {whose} returned {odd}", wrong=who == "mine")
    if len(outputs) < len(wanted):
        raise StopLadder(
            f"stopped at T = {t}: {whose} returned too few arrays", wrong=who == "mine"
        )
    with np.errstate(invalid="ignore"):
        for output, truth in zip(outputs, wanted, strict=False):
            real = real_values(np.asarray(output))
            if real is None:
                raise StopLadder(
                    f"stopped at T = {t}: {whose} {COMPLEX_MESSAGE}", wrong=who == "mine"
                )
            given = np.asarray(real, dtype=np.float64)
            if given.shape != np.shape(truth) or not np.allclose(
                given, truth, rtol=1e-3, atol=1e-4
            ):
                raise StopLadder(
                    f"stopped at T = {t}: the timed output of {whose} is wrong",
                    wrong=who == "mine",
                )
