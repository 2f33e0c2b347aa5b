"""How long `attnquiz submit --no-time` takes on a correct file, next to importing NumPy.

Each command runs as a fresh process, several rounds, after one warm-up round (which also makes
sure the Numba cache exists). Prints median and min and the ratio to `python -c "import numpy"`.

    .venv/bin/python benchmarks/submit.py [--runs 7]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
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
