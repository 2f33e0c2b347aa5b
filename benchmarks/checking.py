"""How long it takes to check one typed answer: in a running session, and as a fresh command.

The requirement: the median time of one check of a typical answer inside a running session is
under 50 ms; a cold `attnquiz check ...` process is reported next to `python -c "import sympy"`
measured in the same run. This script measures and reports; it asserts nothing, and exits
non-zero only when a check gives a wrong verdict or a command fails.

(a) Warm: in this process, each typical answer is checked many times through the warm checking
    worker (`BoundedChecker.grade`, what a session does) and in-process (`item.grade`, no time
    bound), alternating, so that load on the shared machine hits both alike. Also timed: a new
    worker from start to ready (it imports SymPy and runs one check of each kind).
(b) Cold: `attnquiz check 15 ...` as a fresh process through the venv's console script, against
    `python -c pass` and `python -c "import sympy"`, in rounds that run every command once.

    python benchmarks/checking.py [--reps 300] [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
SET = "15"
# Typical answers of set 15, one per kind of check, as a learner would type them.
TYPICAL = [
    ("attention-equation", "softmax(QK^T/sqrt(d_k))V"),
    ("var-dot", "d"),
    ("shape-scores", "(T_q, T_k)"),
    ("std-512", "22.6"),
    ("intensity", "2T²d_k/(8Td_k + 8T²) = Td_k/(4(d_k+T))"),
    ("attention-equation", "softmax(Q @ K.T / np.sqrt(d_k), axis=-1) @ V"),
    ("scores-memory-mib", "16384 KiB"),
    ("cloze-five-lines-transpose", "np.swapaxes(K, 0, 1)"),
]
WARM_BUDGET_S = 0.050
COLD_ITEM = ("var-dot", "d")
COMMAND_TIMEOUT_S = 120


@dataclass
class Series:
    label: str
    runs_s: list[float]

    def row(self) -> dict[str, object]:
        runs = sorted(self.runs_s)
        return {
            "label": self.label,
            "n": len(runs),
            "median_ms": round(statistics.median(runs) * 1000, 3),
            "min_ms": round(runs[0] * 1000, 3),
            "p90_ms": round(runs[int(0.9 * (len(runs) - 1))] * 1000, 3),
        }


# -- (a) checks inside a running process ----------------------------------------------------------
def measure_warm(reps: int) -> tuple[list[Series], Series]:
    from engine.bank.catalog import open_set
    from engine.cards.typed import TypedItem
    from engine.checking.worker.bounded import BoundedChecker

    qset = open_set(SET, Path(os.environ["ATTNQUIZ_HOME"]))
    items: list[tuple[TypedItem, str]] = []
    for item_id, answer in TYPICAL:
        item = qset.item(item_id)
        assert isinstance(item, TypedItem), item_id
        items.append((item, answer))

    # A worker from start to ready: what a session hides behind loading the bank.
    checker = BoundedChecker()
    starts = []
    for _ in range(5):
        checker.close()
        started = time.perf_counter()
        checker.start()
        checker.grade(*items[1])
        starts.append(time.perf_counter() - started)
    startup = Series("new worker: start to first verdict", starts)
    print(f"  worker pid {checker.pid()}", flush=True)

    series: list[Series] = []
    for item, answer in items:
        through_worker, in_process = [], []

        def bounded(text: str, item: TypedItem = item) -> object:
            return checker.grade(item, text)

        for path, grade in (("worker", bounded), ("in-process", item.grade_in_process)):
            for _ in range(5):  # warm-up: caches, the first call of each code path
                verdict = grade(answer)
                if not verdict.correct:
                    raise SystemExit(f"{item.id}: {answer!r} was not judged correct ({path})")
        for _ in range(reps):
            through_worker.append(_timed(bounded, answer))
            in_process.append(_timed(item.grade_in_process, answer))
        series.append(Series(f"{item.id}  {answer}  · worker", through_worker))
        series.append(Series(f"{item.id}  {answer}  · in-process", in_process))
        print(f"  {item.id}: {reps} checks each way", flush=True)
    checker.close()
    return series, startup


def _timed(grade: Callable[[str], object], answer: str) -> float:
    started = time.perf_counter()
    grade(answer)
    return time.perf_counter() - started


# -- (b) cold processes ---------------------------------------------------------------------------
@dataclass
class Command:
    label: str
    argv: list[str]
    expect_correct: bool = False


def cold_commands() -> list[Command]:
    python = sys.executable
    attnquiz = str(Path(python).parent / "attnquiz")
    item_id, answer = COLD_ITEM
    equation = TYPICAL[0]
    return [
        Command("python -c pass", [python, "-c", "pass"]),
        Command('python -c "import sympy"', [python, "-c", "import sympy"]),
        Command(
            f"attnquiz check {SET} {item_id} --answer {answer}",
            [attnquiz, "check", SET, item_id, "--answer", answer, "--json"],
            expect_correct=True,
        ),
        Command(
            f"attnquiz check {SET} {equation[0]} --answer '{equation[1]}'",
            [attnquiz, "check", SET, equation[0], "--answer", equation[1], "--json"],
            expect_correct=True,
        ),
    ]


def measure_cold(runs: int) -> list[Series]:
    commands = cold_commands()
    times: dict[str, list[float]] = {c.label: [] for c in commands}
    for round_no in range(runs + 1):
        for command in commands:
            started = time.perf_counter()
            result = subprocess.run(
                command.argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
            )
            elapsed = time.perf_counter() - started
            if result.returncode != 0:
                raise SystemExit(f"{command.label} failed: {result.stderr.strip()}")
            if command.expect_correct and json.loads(result.stdout)["correct"] is not True:
                raise SystemExit(f"{command.label}: not judged correct: {result.stdout}")
            if round_no:
                times[command.label].append(elapsed)
        print(f"  round {round_no}/{runs}" + (" (warm-up)" if round_no == 0 else ""), flush=True)
    return [Series(label, runs_s) for label, runs_s in times.items()]


# -- report ---------------------------------------------------------------------------------------
def print_table(title: str, rows: list[dict[str, object]], reference: float | None) -> None:
    width = max(len(str(r["label"])) for r in rows)
    print(f"\n{title}")
    header = f"{'':<{width}}  {'median ms':>9}  {'min ms':>8}  {'p90 ms':>8}"
    print(header + ("  × pass" if reference else ""))
    for r in rows:
        line = (
            f"{r['label']:<{width}}  {r['median_ms']:>9.2f}  {r['min_ms']:>8.2f}  "
            f"{r['p90_ms']:>8.2f}"
        )
        if reference:
            line += f"  {float(str(r['median_ms'])) / reference:>6.1f}"
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=300, help="checks per answer and path")
    parser.add_argument("--runs", type=int, default=9, help="rounds of cold commands")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="attnquiz-bench-") as home:
        os.environ["ATTNQUIZ_HOME"] = home  # no user sets, no store of the person running this
        print(f"warm: {args.reps} checks of each typical answer, worker and in-process")
        warm, startup = measure_warm(args.reps)
        print(f"cold: {args.runs} rounds of fresh processes after one warm-up round")
        cold = measure_cold(args.runs)

    load = [round(x, 2) for x in os.getloadavg()]
    print(
        f"\nmachine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {' '.join(map(str, load))}"
    )
    warm_rows = [s.row() for s in warm]
    print_table(
        f"(a) one check inside a running process (budget {WARM_BUDGET_S * 1000:g} ms, median)",
        warm_rows,
        None,
    )
    worst = max(float(str(r["median_ms"])) for r in warm_rows if "worker" in str(r["label"]))
    verdict = "under" if worst < WARM_BUDGET_S * 1000 else "OVER"
    print(f"slowest worker median: {worst:.2f} ms, {verdict} the budget")
    print_table("worker start-up (hidden behind loading the bank)", [startup.row()], None)
    cold_rows = [s.row() for s in cold]
    floor = float(str(cold_rows[0]["median_ms"]))
    print_table("(b) a fresh process (× pass: ratio to python -c pass)", cold_rows, floor)

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "checking.json"
    result = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "nproc": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average": load,
        },
        "warm_budget_ms": WARM_BUDGET_S * 1000,
        "reps": args.reps,
        "runs": args.runs,
        "warm": warm_rows,
        "worker_startup": startup.row(),
        "cold": cold_rows,
        "raw": {s.label: [round(t, 6) for t in s.runs_s] for s in [*cold, startup]},
    }
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwritten to {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
