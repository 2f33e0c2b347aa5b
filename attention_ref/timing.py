"""Time a passing submission on this CPU, like with like, next to the NumPy reference.

The learner's code and the NumPy reference (`reference.py` itself, loaded as a submission)
run in the same kind of sandboxed process, with one thread each, on the same core, called
through the same channel with the same inputs. Their samples are interleaved, in a fresh
order each round, so a burst of load on this shared machine hits both. Each size starts with
warm-up calls that are not counted (first calls, Numba compiling the learner's code). Every
timed output is checked against the reference: code that answers the battery and returns
garbage at the timing sizes is stopped and reported, and so is code that leaves processes
running to slow the reference down.

The Numba kernel is timed the same way, in a third sandbox that may import attnquiz's own
package: it is compiled (or loaded from Numba's cache) here first, with a message, and its
cache is copied into the sandbox, so no run sits silent while it compiles.
"""

from __future__ import annotations

import contextlib
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from attention_ref import reference
from attention_ref.calling import CallPlan
from attention_ref.discovery import Found
from attention_ref.grading import COMPLEX_MESSAGE, for_code, real_values
from attention_ref.machine import Machine, this_machine
from attention_ref.reference import attention_flops
from attention_ref.sandbox import CallResult, Limits, Sandbox
from attention_ref.sandbox.processes import processes_in_session, processes_of_uid
from attention_ref.sandbox.results import NotAnArray, as_returned

LADDER = (64, 128, 256, 512, 1024, 2048)
D = 64
WARMUP = 2
MIN_SAMPLES = 15
MAX_SAMPLES = 201
SIZE_BUDGET_S = 3.0  # time spent sampling one size, once MIN_SAMPLES are in
TOTAL_BUDGET_S = 30.0
Progress = Callable[[str], None]


KERNEL = "kernel"  # the name of the Numba kernel among the timed processes


class StopLadder(Exception):
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
    size_budget_s: float = SIZE_BUDGET_S,
) -> dict[str, Any]:
    """Median times per size, `vs_numpy` (yours / the reference's, same process kind), spread,
    and why the ladder stopped. `plan` is how grading called the code (form, mask, d_k).
    Each size is sampled until `min_samples` are in and `size_budget_s` is spent."""
    say = progress or (lambda text: None)
    plan = plan or CallPlan(
        Found(function, "attention" if target == "attention" else "softmax", (), 0)
    )
    limits = for_code(plan.found, limits or Limits())
    machine = this_machine()
    kernel_files = compiled_kernel(target, say)
    notes: list[str] = []
    reference_name = "attention" if target == "attention" else "stable_softmax"
    sizes: list[dict[str, Any]] = []
    stopped = "every size of the ladder was timed"
    wrong_output = False
    fresh = _submission_inputs(target, plan, seed)
    started = fresh.clock()  # the time spent drawing inputs is not part of the budget
    say("timing: starting your code and the references in their sandboxes")
    with (
        Sandbox(path, function, limits, numba=plan.found.hints.uses_numba) as mine,
        Sandbox(Path(reference.__file__), reference_name, limits) as ref,
        kernel_sandbox(kernel_files, limits, notes) as kernel,
    ):
        boxes = {"mine": mine, "ref": ref, **({KERNEL: kernel} if kernel is not None else {})}
        timed = TimingBoxes(boxes, notes, say, min_samples=min_samples, size_budget_s=size_budget_s)
        for t in ladder:
            left = budget_s - (fresh.clock() - started)
            if left <= 0:
                stopped = f"the time budget ({budget_s:g} s) ran out before T = {t}"
                break
            try:
                row = _time_size(timed, plan, target, t, fresh, left, machine)
            except StopLadder as stop:
                stopped, wrong_output = str(stop), stop.wrong
                break
            sizes.append(row)
            spent = fresh.clock() - started
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
        "dtype": "float32" if plan.float32 else "float64",
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
            "vs_numpy (and vs_kernel, the Numba kernel in a third such sandbox) is the median "
            "of the ratios of neighbouring calls"
        ),
        "same_core": timed.same_core,
        "notes": notes,
    }


def sandbox_processes(box: Sandbox, *, zombies: bool = False) -> list[int]:
    """The sandbox's live processes (and its zombies, if asked): every one of its private uid
    (daemons that left its session too), or its session's when it has no private uid."""
    if box.uid is not None:
        return processes_of_uid(box.uid, zombies=zombies)
    return processes_in_session(box.pid, zombies=zombies) if box.pid else []


def pin_to_one_core(*boxes: Sandbox) -> bool:
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
    dtype = np.float32 if plan.float32 else np.float64
    if target == "softmax":
        shape: tuple[int, ...] = (t,) if plan.rank == 1 else (t, t)
        return (rng.normal(size=shape).astype(dtype),)
    lead = (1,) * max(plan.rank - 2, 0)
    return tuple(rng.normal(size=(*lead, t, D)).astype(dtype) for _ in range(3))


def _call_mine(box: Sandbox, plan: CallPlan, args: tuple[Any, ...]) -> CallResult:
    masks = plan.mask_attempts(args[0].shape[-2], args[1].shape[-2], False) if len(args) > 1 else []
    return plan.call(box, args, mask=masks[0] if masks else None)


def _time_size(
    timed: TimingBoxes,
    plan: CallPlan,
    target: str,
    t: int,
    fresh: FreshInputs,
    left: float,
    machine: Machine,
) -> dict[str, Any]:
    # Code that masks the future by itself (causal_attention) is timed against causal references.
    extra = {"causal": True} if plan.found.causal_by_name else {}

    def call(who: str) -> CallResult:
        args = fresh.for_call(who, t)
        if who == "mine":
            return _call_mine(timed.boxes[who], plan, args)
        return timed.boxes[who].call(*args, **extra)

    times = timed.sample(t, left, call, lambda result, who: fresh.check(result, who), fresh.clock)
    return _row(target, t, times["mine"], times["ref"], times.get(KERNEL), machine)


def _submission_inputs(target: str, plan: CallPlan, seed: int) -> FreshInputs:
    """Fresh inputs of the sizes asked, the truth by the NumPy reference."""
    causal = plan.found.causal_by_name

    def truth(args: tuple[Any, ...]) -> np.ndarray:
        return np.asarray(
            reference.attention(*args, causal=causal)
            if target == "attention"
            else reference.stable_softmax(args[0])
        )

    def draw(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
        return _inputs(target, plan, t, rng)

    return FreshInputs(draw, truth, _check, np.random.default_rng(seed))


Draw = Callable[[np.random.Generator, int], tuple[Any, ...]]
Compare = Callable[[CallResult, Any, int, str], None]
REFERENCE = "ref"  # the box that runs the trusted reference


class FreshInputs:
    """Inputs for each call of a timing run that no box has had before, and the check of every
    output against the truth for its own inputs.

    Code that kept an output (by its inputs' bytes or shapes) and replays it would otherwise be
    timed as a lookup; and an input set varied by a cheap transform whose effect on the output
    is known (V + c shifts each output row by c) lets code undo the transform on what it kept.
    So every set is drawn afresh (`draw(rng, t)`). One set is shared by the boxes of a round
    (like with like: each gets the same inputs), and a new one is drawn as soon as a box would
    get a set for the second time.

    The truth for a set is what the reference box returns for it: that box runs the trusted
    reference on every set anyway, so the parent computes nothing per round. An output that
    arrives before the reference's (the order is shuffled each round) waits for it. The
    reference itself is checked once per size, on that size's first set, against `truth(args)`
    computed here: a difference there is a bug in attnquiz. `compare(result, truth, t, who)`
    raises StopLadder; `clock` is the wall clock less the time spent drawing and computing."""

    def __init__(
        self,
        draw: Draw,
        truth: Callable[[tuple[Any, ...]], Any],
        compare: Compare,
        rng: np.random.Generator,
    ) -> None:
        self.draw = draw
        self.truth = truth
        self.compare = compare
        self.rng = rng
        self.spent = 0.0
        self._size = -1
        self._set = 0  # the number of the current set
        self._first = 0  # the number of this size's first set
        self._args: tuple[Any, ...] = ()
        self._given: dict[str, int] = {}  # the set each box was last given
        self._said: dict[int, Any] = {}  # the reference's output for a set
        self._waiting: dict[int, list[tuple[str, CallResult]]] = {}
        self._failed: dict[str, StopLadder] = {}  # found late, raised at the box's next check

    def clock(self) -> float:
        return time.perf_counter() - self.spent

    def for_call(self, who: str, t: int) -> tuple[Any, ...]:
        """The arguments for `who`'s next call at size `t`."""
        if t != self._size or self._given.get(who) == self._set:
            started = time.perf_counter()
            self._args = self.draw(self.rng, t)
            self.spent += time.perf_counter() - started
            self._set += 1
            if t != self._size:
                self._size, self._first = t, self._set
            self._said = {n: v for n, v in self._said.items() if n == self._set - 1}
        self._given[who] = self._set
        return self._args

    def check(self, result: CallResult, who: str) -> None:
        """Check `who`'s output for the set it was last given (see the class)."""
        t, number = self._size, self._given[who]
        if who in self._failed:
            raise self._failed.pop(who)
        if result.status != "ok" or result.seconds is None:
            self.compare(result, None, t, who)  # raises: it ended without an output
        if who != REFERENCE:
            if number in self._said:
                self.compare(result, self._said[number], t, who)
            else:
                self._waiting.setdefault(number, []).append((who, result))
            return
        if number == self._first:
            started = time.perf_counter()
            truth = self.truth(self._args)
            self.spent += time.perf_counter() - started
            self.compare(result, truth, t, who)
        said = result.value
        said = tuple(np.asarray(v) for v in said) if isinstance(said, tuple) else np.asarray(said)
        self._said[number] = said
        for other, other_result in self._waiting.pop(number, []):
            try:
                self.compare(other_result, said, t, other)
            except StopLadder as stop:
                if other != KERNEL:
                    raise
                self._failed[other] = stop  # the kernel is optional: dropped at its next call


# How much more CPU time than its timed calls took `mine` may use before the ladder stops: the
# clock ticks of /proc (1/100 s per reading and process) and a little work after each reply.
CPU_SLACK_S = 0.05
CPU_SLACK_SHARE = 0.1


def _cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime of /proc/PID/stat, in seconds (0 once it is gone)."""
    import os

    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()
        ticks = sum(int(n) for n in fields[11:15])
    except (OSError, ValueError):
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


class TimingBoxes:
    """The sandboxes one timing run compares (`mine`, `ref`, and `kernel` when it is timed),
    pinned to one core, and the rules every size of its ladder keeps, for `submit` and the
    exercises alike.

    Once warm, the learner's code (`mine`) may have no more processes than when its sandbox
    started, after the warm-up calls and after the timed ones: one it left running stops the
    ladder, since it would slow the others down and skew the figures. Nor may it use more CPU
    time than its timed calls took: on its one core, only code that ran between its calls
    (a thread or a process computing while the others are timed) or on more cores than it was
    given does. A kernel that fails is left out with a note in `notes`, and out of `boxes`, so
    that the later sizes do not time it either."""

    def __init__(
        self,
        boxes: dict[str, Sandbox],
        notes: list[str],
        say: Progress,
        *,
        min_samples: int = MIN_SAMPLES,
        size_budget_s: float = SIZE_BUDGET_S,
    ) -> None:
        self.boxes = boxes
        self.notes = notes
        self.say = say
        self.min_samples = min_samples
        self.size_budget_s = size_budget_s
        self.same_core = pin_to_one_core(*boxes.values())
        self.baseline = len(sandbox_processes(boxes["mine"]))

    def sample(
        self,
        t: int,
        left: float,
        call: Callable[[str], CallResult],
        check: Callable[[CallResult, str], None],
        clock: Callable[[], float] = time.perf_counter,
    ) -> dict[str, list[float]]:
        """Seconds per call of every box at size `t` (`sample_interleaved`, within `left`
        seconds of the run's budget, as `clock` counts them)."""
        warm: list[float] = []  # the CPU time `mine` had used once warm

        def warmed() -> None:
            self._no_processes_left(t)
            warm.append(self._cpu_of_mine())

        times = sample_interleaved(
            list(self.boxes),
            call,
            check,
            t,
            left,
            self.say,
            min_samples=self.min_samples,
            size_budget_s=self.size_budget_s,
            after_warmup=warmed,
            optional=self._leave_out,
            clock=clock,
        )
        self._no_processes_left(t)
        used, took = self._cpu_of_mine() - warm[0], sum(times["mine"])
        if used - took > CPU_SLACK_S + CPU_SLACK_SHARE * took:
            raise StopLadder(
                f"stopped at T = {t}: your code used more CPU time than its calls took "
                f"({used:.2f} s in {took:.2f} s): it ran between its calls or on more than one "
                "core, which would slow the reference down and skew the figures"
            )
        return times

    def _cpu_of_mine(self) -> float:
        """CPU seconds used so far by the processes of `mine` (every thread of each, and the
        children each has waited for), zombies included: a child that computed and exited is
        in no live process's counters until its parent waits for it."""
        mine = sandbox_processes(self.boxes["mine"], zombies=True)
        return sum(_cpu_seconds(pid) for pid in mine)

    def _no_processes_left(self, t: int) -> None:
        if len(sandbox_processes(self.boxes["mine"])) > self.baseline:
            raise StopLadder(
                f"stopped at T = {t}: your code left processes running, which would slow the "
                "reference down and skew the figures"
            )

    def _leave_out(self, who: str, reason: str) -> None:
        self.boxes.pop(who, None)
        self.notes.append(f"the Numba kernel was left out of the timing ({reason})")


def sample_interleaved(
    whos: list[str],
    call: Callable[[str], CallResult],
    check: Callable[[CallResult, str], None],
    t: int,
    left: float,
    say: Progress,
    *,
    min_samples: int = MIN_SAMPLES,
    max_samples: int = MAX_SAMPLES,
    size_budget_s: float = SIZE_BUDGET_S,
    after_warmup: Callable[[], None] | None = None,
    optional: Callable[[str, str], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call of each of `whos` at one size: warm-up calls first (not counted), then
    rounds in a fresh order, until `min_samples` are in and the size's budget is spent. Every
    result goes through `check`, which raises StopLadder to end the ladder. `clock` measures the
    budget: one that stops while the caller prepares inputs leaves that work out of it.

    The Numba kernel is a comparison, not part of the verdict: when `optional` is given, a
    failure of the kernel (a time-out while a busy machine loads it, say) drops it from this
    size on, `optional(who, reason)` is told why, and the others go on being timed."""
    whos = list(whos)

    def checked(result: CallResult, who: str) -> bool:
        try:
            check(result, who)
        except StopLadder as stop:
            if who != KERNEL or optional is None:
                raise
            whos.remove(who)
            times.pop(who, None)
            optional(who, str(stop))
            return False
        return True

    times: dict[str, list[float]] = {}
    say(f"timing T = {t}: warming up")
    for _ in range(WARMUP):
        for who in list(whos):
            checked(call(who), who)
    if after_warmup is not None:
        after_warmup()
    times = {who: [] for who in whos}
    shuffle = random.Random(t)
    size_started = clock()
    while len(times[whos[0]]) < max_samples:
        elapsed = clock() - size_started
        if len(times[whos[0]]) >= min_samples and (elapsed > min(size_budget_s, left)):
            break
        if elapsed > left and times[whos[0]]:
            break
        # A fresh order each round, so that each process comes first as often as the others:
        # the first call of a round follows the drawing of its new inputs (FreshInputs), which
        # slows that call down (measured: 0.6-0.8 for identical code always called second,
        # 1.1-1.3 first, where a fixed order such as "never the same process twice in a row"
        # gives with two processes). A process may run last in one round and first in the next:
        # on other inputs.
        order = list(whos)
        shuffle.shuffle(order)
        for who in order:
            if who not in whos:  # dropped earlier in this round
                continue
            result = call(who)
            if checked(result, who):
                assert result.seconds is not None
                times[who].append(result.seconds)
        if len(times[whos[0]]) % 5 == 0:
            say(f"timing T = {t}: {len(times[whos[0]])} samples each")
    return times


def _check(result: CallResult, expected: np.ndarray, t: int, who: str = "mine") -> None:
    whose = {"mine": "your code", KERNEL: "the Numba kernel"}.get(
        who, f"the {who} reference (a bug in attnquiz)"
    )
    if result.status != "ok" or result.seconds is None:
        raise StopLadder(f"stopped at T = {t}: {whose} ended with {result.status}: {result.error}")
    value = as_returned(result.value, expected.shape)
    value = value[0] if isinstance(value, tuple) and value else value
    if isinstance(value, NotAnArray):
        raise StopLadder(f"stopped at T = {t}: {whose} returned {value}", wrong=who == "mine")
    real = real_values(np.asarray(value))
    wrong = who == "mine"
    if real is None:
        raise StopLadder(f"stopped at T = {t}: {whose} {COMPLEX_MESSAGE}", wrong=wrong)
    given = np.asarray(real, dtype=np.float64)
    if given.size != expected.size:
        raise StopLadder(
            f"stopped at T = {t}: the timed output of {whose} has the wrong shape {given.shape}",
            wrong=wrong,
        )
    with np.errstate(invalid="ignore"):
        ok = np.allclose(given.reshape(expected.shape), expected, rtol=1e-3, atol=1e-4)
    if not ok:
        raise StopLadder(
            f"stopped at T = {t}: the timed output of {whose} is wrong (not the reference's "
            "values)",
            wrong=wrong,
        )


_KERNEL_SHIM = (
    "from attention_ref.kernel import flash_attention\n\n\n"
    "def attention(Q, K, V, causal=False):\n"
    "    return flash_attention(Q, K, V, causal=causal)\n"
)


def compiled_kernel(target: str, say: Progress) -> dict[str, bytes] | None:
    """Compile the kernel here (or load it from Numba's cache), and return its cache files as
    the kernel's sandbox will look for them; None when there is no kernel to time."""
    if target != "attention":
        return None
    try:
        from numba.core.caching import _CacheLocator

        from attention_ref import kernel
    except ImportError:
        return None
    cache = getattr(kernel._flash_core, "_cache", None)
    folder = Path(getattr(cache, "_cache_path", ""))
    if folder.is_dir() and any(folder.glob("kernel._flash_core-*.nbi")):
        say("timing: loading the Numba kernel from its cache")
    else:
        say("timing: compiling the Numba kernel, once for this machine (about 15 s)")
    started = time.perf_counter()
    tiny = np.zeros((4, D), dtype=np.float32)
    kernel.flash_attention(tiny, tiny, tiny)
    kernel.flash_attention(tiny, tiny, tiny, causal=True)
    say(f"timing: the Numba kernel is ready ({time.perf_counter() - started:.1f} s)")
    subpath = _CacheLocator.get_suitable_cache_subpath(kernel.__file__)
    files = {"kernel.py": _KERNEL_SHIM.encode()}
    if folder.is_dir():
        for entry in folder.glob("kernel.*.nb[ic]"):
            files[f"numba-cache/{subpath}/{entry.name}"] = entry.read_bytes()
    return files


@contextlib.contextmanager
def kernel_sandbox(
    files: dict[str, bytes] | None, limits: Limits, notes: list[str]
) -> Iterator[Sandbox | None]:
    """The kernel's sandbox, ready (its first call done); None, with a note, if it is not."""
    if files is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="attnquiz-kernel-") as folder:
        shim = Path(folder) / "kernel_shim.py"
        shim.write_text(files["kernel.py"].decode(), encoding="utf-8")
        cache = {k: v for k, v in files.items() if k.startswith("numba-cache/")}
        kernel = Sandbox(shim, "attention", limits, own_packages=True, files=cache, numba=True)
        with kernel as box:
            tiny = np.zeros((4, D), dtype=np.float32)
            first = box.call(tiny, tiny, tiny)
            if first.status == "ok":
                yield box
                return
            notes.append(f"the Numba kernel was not timed: {first.status}: {first.error}")
        yield None


def _row(
    target: str,
    t: int,
    mine: list[float],
    ref: list[float],
    kernel: list[float] | None,
    machine: Machine,
) -> dict[str, Any]:
    median = statistics.median(mine)
    numpy_s = statistics.median(ref)
    kernel_s = statistics.median(kernel) if kernel else None
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
        "vs_numpy": paired_ratio(mine, ref),
        "vs_kernel": paired_ratio(mine, kernel) if kernel else None,
        "share_of_peak": gflops / machine.sgemm_gflops if target == "attention" else None,
    }


def paired_ratio(mine: list[float], theirs: list[float]) -> float:
    return statistics.median([a / b for a, b in zip(mine, theirs, strict=False)])


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
