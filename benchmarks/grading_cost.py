"""What grading a submission costs, phase by phase, next to a sandbox that runs nothing.

Grades every file of the code corpus (tests/attention_ref/cases/submissions*.tsv) once, one after
another in this thread, on one seed, and prints:
- each phase's CPU in this process (thread CPU time, so sandboxes waiting do not count): the
  discovery of the function, starting and stopping the sandbox, the calls, the diagnosis;
- the CPU of everything grading ran (this process, the template, every sandbox), counted in a
  cpuacct cgroup made for the run when one can be made (root, cgroup v1), per file, with the
  files that cost most;
- the peer: a sandbox started on a one-line file and closed without a call, the floor every
  graded file pays, measured the same way; grading is reported as a ratio to it;
- the files that use Numba apart (their sandboxes fork from a template that has started Numba,
  started by the first of them and counted in its figure), and that template's floor.

    .venv/bin/python benchmarks/grading_cost.py [--seed 11] [--floor-runs 40]

Sandbox processes are reparented to init, so `time` does not see their CPU: only the cgroup
count includes them. The machine is shared: compare figures from one run, not across runs.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CPU: dict[str, float] = collections.defaultdict(float)
CALLS: collections.Counter[str] = collections.Counter()

PHASES = {  # module: functions timed as a phase (each module's own name, as grading calls it)
    "attention_ref.grading": [
        "find_function",
        "attention_cases",
        "softmax_cases",
        "in_form",
        "matching_pitfalls",
        "ruled_out_pitfalls",
        "_judge",
    ],
    "attention_ref.sandbox.runner": [
        "Sandbox._start",
        "Sandbox._import",
        "Sandbox.call",
        "Sandbox._shutdown",
    ],
    "attention_ref.sandbox.processes": ["processes_of_uid"],
}


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            CPU[label] += time.thread_time() - start
            CALLS[label] += 1

    return wrapper


def _instrument() -> None:
    import importlib

    for module_name, names in PHASES.items():
        module = importlib.import_module(module_name)
        for name in names:
            owner: Any = module
            *path, last = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, last, _timed(name, getattr(owner, last)))


@contextlib.contextmanager
def cpu_cgroup() -> Iterator[Callable[[], float | None]]:
    """Move this process into a fresh cpuacct cgroup (its children follow): a reader of the
    CPU seconds used in it so far, or of None when no cgroup could be made."""
    base = Path("/sys/fs/cgroup/cpuacct")
    group = base / f"attnquiz-grading-cost-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        yield lambda: None
        return
    try:
        yield lambda: int((group / "cpuacct.usage").read_text()) / 1e9
    finally:
        from attention_ref.sandbox.template import discard_this_threads_template

        discard_this_threads_template()  # it lives in the group until it ends
        with contextlib.suppress(OSError):
            (base / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(50):  # the last sandboxes may still be exiting
            with contextlib.suppress(OSError):
                group.rmdir()
                break
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--floor-runs", type=int, default=40)
    options = parser.parse_args()

    from attention_ref.grading import grade_submission
    from attention_ref.sandbox import Sandbox
    from tests.attention_ref import test_corpus as corpus

    with cpu_cgroup() as used, tempfile.TemporaryDirectory() as folder:
        # Warm up (the template starts, modules load), then the floor: a sandbox doing nothing.
        bare = Path(folder) / "bare.py"
        bare.write_text("def attention(Q, K, V):\n    return V\n", encoding="utf-8")
        with Sandbox(bare, "attention", corpus.LIMITS):
            pass
        floor_cpu, floor_all = time.thread_time(), used()
        for _ in range(options.floor_runs):
            with Sandbox(bare, "attention", corpus.LIMITS):
                pass
        floor_thread = (time.thread_time() - floor_cpu) / options.floor_runs
        after = used()
        floor = None if after is None or floor_all is None else (after - floor_all)
        floor = None if floor is None else floor / options.floor_runs

        _instrument()
        data_dir = Path(folder) / "store"
        per_file: dict[str, tuple[float, float | None]] = {}
        started, started_all = time.thread_time(), used()
        for row in corpus.ROWS:
            path = corpus.CORPUS / f"{row.file}.py"
            thread, everything = time.thread_time(), used()
            if row.exercise == "-":
                grade_submission(path, limits=corpus.LIMITS, seed=options.seed)
            else:
                from engine.commands.exercises import find_exercise

                _, item = find_exercise(row.exercise, data_dir)
                source = path.read_text(encoding="utf-8")
                item.grade_source(source, path, limits=corpus.LIMITS, seed=options.seed)
            now = used()
            per_file[row.file] = (
                time.thread_time() - thread,
                None if now is None or everything is None else now - everything,
            )
        thread_total = time.thread_time() - started
        ended = used()
        # The floor of a sandbox forked from the Numba template (started by the graded files).
        numba_before = used()
        for _ in range(options.floor_runs):
            with Sandbox(bare, "attention", corpus.LIMITS, numba=True):
                pass
        numba_after = used()
        numba_floor = (
            None
            if numba_after is None or numba_before is None
            else (numba_after - numba_before) / options.floor_runs
        )

    files = len(per_file)
    print(f"{files} files graded, seed {options.seed}")
    # Inclusive: a phase holds the phases it calls (Sandbox._start picks a uid by a process scan).
    print(f"{'phase (this thread)':28} {'calls':>6} {'CPU s':>7} {'ms/file':>8}")
    for label in sorted(CPU, key=lambda k: -CPU[k]):
        print(f"{label:28} {CALLS[label]:6d} {CPU[label]:7.2f} {1000 * CPU[label] / files:8.2f}")
    per = 1000 * thread_total / files
    print(f"{'all of this thread':28} {'':6} {thread_total:7.2f} {per:8.2f}")
    print(f"floor, a sandbox that runs nothing: this thread {1000 * floor_thread:.1f} ms", end="")
    if floor is None or ended is None or started_all is None:
        print("; CPU of the sandboxes: unavailable (no cpuacct cgroup could be made)")
        return
    print(f", in all {1000 * floor:.1f} ms")
    total = ended - started_all
    known = sorted(((cpu, name) for name, (_, cpu) in per_file.items() if cpu is not None))
    median = known[len(known) // 2][0]
    print(
        f"CPU in all (this process, template, sandboxes): {total:.2f} s, "
        f"{1000 * total / files:.1f} ms per file, median {1000 * median:.1f} ms "
        f"({median / floor:.2f}x the floor)"
    )
    for cpu, name in known[::-1][:8]:
        print(f"  {name:44} {1000 * cpu:8.1f} ms")
    numba_files = [row.file for row in corpus.ROWS if corpus._uses_numba(row)]
    numba_cpu = sum(per_file[name][1] or 0.0 for name in numba_files)
    others = (total - numba_cpu) / max(1, files - len(numba_files))
    print(
        f"{len(numba_files)} Numba files: {numba_cpu:.2f} s in all (their template's start "
        f"included); the other files {1000 * others:.1f} ms per file"
    )
    if numba_floor is not None:
        print(f"floor of a sandbox from the Numba template: in all {1000 * numba_floor:.1f} ms")


if __name__ == "__main__":
    main()
