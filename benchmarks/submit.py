"""How long `attnquiz submit --no-time` takes on a correct file, next to importing NumPy; and
how honest `submit`'s timing is: the vs_numpy ratios of code identical to the NumPy reference.

Each command runs as a fresh process, several rounds, after one warm-up round (which also makes
sure the Numba cache exists). Prints median and min and the ratio to `python -c "import numpy"`.
With --ratio-runs N, times a copy of attention_ref/reference.py N times through the timing
`attnquiz submit` uses and prints vs_numpy at every size of each run (docs/spec.md: 0.8-1.25).

    .venv/bin/python benchmarks/submit.py [--runs 7]
    .venv/bin/python benchmarks/submit.py --ratio-runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOOD = ROOT / "tests" / "attention_ref" / "submissions" / "good" / "five_lines.py"
RESULTS = ROOT / "benchmarks" / "results"


def command_line(name: str) -> list[str]:
    attnquiz = str(Path(sys.executable).with_name("attnquiz"))
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
        "attnquiz submit --no-time": [attnquiz, "submit", str(GOOD), "--no-time"],
        "attnquiz submit --no-time --json": [attnquiz, "submit", str(GOOD), "--no-time", "--json"],
    }[name]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ))
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr[-500:]}")
    return elapsed


def ratio_runs(runs: int) -> None:
    """vs_numpy of reference-identical code at each size, run after run."""
    import tempfile

    from attention_ref import reference
    from attention_ref.grading import grade_submission
    from attention_ref.timing import time_submission

    band = (0.8, 1.25)
    table: list[dict[int, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "mine.py"
        copy.write_text(Path(reference.__file__).read_text(encoding="utf-8"), encoding="utf-8")
        grade = grade_submission(copy)
        assert grade.passed, grade.message
        for run in range(runs):
            timing = time_submission(copy, grade.function, grade.target, plan=grade.plan)
            table.append({row["T"]: row["vs_numpy"] for row in timing["sizes"]})
            figures = "  ".join(f"T={t}: {r:.3f}" for t, r in table[-1].items())
            print(f"run {run + 1}: {figures}  ({timing['stopped']})", flush=True)
    ratios = [r for row in table for r in row.values()]
    inside = sum(band[0] <= r <= band[1] for r in ratios)
    print(
        f"vs_numpy of reference-identical code: {inside} of {len(ratios)} figures within "
        f"{band[0]}-{band[1]}; min {min(ratios):.3f}, max {max(ratios):.3f}; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "submit_ratios.json").write_text(json.dumps(table, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ratio-runs", type=int, default=0, help="time reference-identical code")
    args = parser.parse_args()
    if args.ratio_runs:
        ratio_runs(args.ratio_runs)
        return
    names = [
        "python -c pass",
        'python -c "import numpy"',
        "attnquiz submit --no-time",
        "attnquiz submit --no-time --json",
    ]
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(args.runs + 1):
        for name in names:
            seconds = timed(command_line(name))
            if round_:  # round 0 warms caches (files, Numba, BLAS)
                samples[name].append(seconds)
    floor = statistics.median(samples['python -c "import numpy"'])
    print(
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; {args.runs} runs after a warm-up"
    )
    print(f"{'command':36s} {'median s':>9s} {'min s':>7s} {'× import numpy':>15s}")
    report = {}
    for name in names:
        median, best = statistics.median(samples[name]), min(samples[name])
        report[name] = {"median_s": median, "min_s": best, "vs_import_numpy": median / floor}
        print(f"{name:36s} {median:9.3f} {best:7.3f} {median / floor:15.1f}")
    budget = report["attnquiz submit --no-time"]["median_s"]
    print(
        f"submit --no-time median {budget:.2f} s; budget 3 s: {'under' if budget < 3 else 'OVER'}"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "submit.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
