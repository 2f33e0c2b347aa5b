"""How long attnquiz takes to start on a large store: `--help`, the first question, stats, list.

The requirement: with a store of 100,000 cards and 1,000,000 reviews, the first question of
`attnquiz 15` and `attnquiz stats 15` each appear in under 0.5 s on this machine, reported next
to `python -c pass` measured in the same run. This script measures and reports; it asserts
nothing, and exits non-zero only when a command fails.

Each command runs as a fresh process through the venv's `attnquiz` console script, so the real
entry point and every import are included. The store is generated once through the program's
own `open_store` (schema, application id, WAL) and cached in `benchmarks/results/`; every
measurement runs on a throw-away copy of it, because sessions write to the store.

    python benchmarks/startup.py [--runs 7] [--set 15] [--regenerate]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
DEMO_BANK = REPO / "tests" / "fixtures" / "quizzes" / "demo.yaml"
STORE_FILE = "attnquiz.sqlite3"
DEFAULT_SET = "15"
BUDGET_S = 0.5
DAY_MS = 86_400_000
MINUTE_MS = 60_000
HISTORY_DAYS = 730
OTHER_SETS = 1_000
BENCH_REVIEW_SHARE = 0.3  # of all reviews, on the benchmarked set (300,000 of 1,000,000)
RETIRED_ITEMS = 15  # items of the benchmarked set that were reviewed, then removed from the bank
COMMAND_TIMEOUT_S = 120


# -- the generated store ------------------------------------------------------------------------
@dataclass(frozen=True)
class StoreSpec:
    """What a generated store holds; a cached store is reused only when its spec is the same."""

    set_name: str
    bank_digest: str  # of the set's item ids: a bank edited since means a new card mix
    cards: int
    reviews: int
    seed: int


@dataclass
class GeneratedStore:
    folder: Path
    spec: StoreSpec
    generated_at_ms: int
    bank_items: int
    seconds: float
    file_bytes: int

    @property
    def manifest(self) -> Path:
        return self.folder.with_suffix(".json")


def store_folder(spec: StoreSpec) -> Path:
    """`store-100k` for the default set; another set gets its own cache beside it."""
    size = f"{spec.cards // 1000}k" if spec.cards % 1000 == 0 else str(spec.cards)
    suffix = "" if spec.set_name == DEFAULT_SET else f"-{spec.set_name}"
    return RESULTS / f"store-{size}{suffix}"


def cached_store(spec: StoreSpec) -> GeneratedStore | None:
    folder = store_folder(spec)
    manifest = folder.with_suffix(".json")
    if not (folder / STORE_FILE).is_file() or not manifest.is_file():
        return None
    try:
        saved = json.loads(manifest.read_text())
        if StoreSpec(**saved["spec"]) != spec:
            return None
        return GeneratedStore(
            folder=folder,
            spec=spec,
            generated_at_ms=saved["generated_at_ms"],
            bank_items=saved["bank_items"],
            seconds=saved["seconds"],
            file_bytes=(folder / STORE_FILE).stat().st_size,
        )
    except (ValueError, KeyError, TypeError):
        return None


def bank_item_ids(set_name: str, folder: Path) -> list[str]:
    """The set's item ids as attnquiz loads them (the built-in bank, or `<store>/quizzes`)."""
    from engine.bank.catalog import open_set

    if set_name == "demo":
        (folder / "quizzes").mkdir(parents=True, exist_ok=True)
        shutil.copy(DEMO_BANK, folder / "quizzes" / "demo.yaml")
    return open_set(set_name, folder).ids


def generate_store(spec: StoreSpec) -> GeneratedStore:
    from engine.store import open_store

    folder = store_folder(spec)
    shutil.rmtree(folder, ignore_errors=True)
    folder.with_suffix(".json").unlink(missing_ok=True)
    started = time.perf_counter()
    item_ids = bank_item_ids(spec.set_name, folder)
    # The program's own code path creates the file: schema, migrations table, application id.
    open_store(folder).close()
    now_ms = int(time.time() * 1000)
    rng = random.Random(spec.seed)

    db = sqlite3.connect(folder / STORE_FILE, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")  # a generator crash just means generating again
    db.execute("PRAGMA cache_size = -262144")  # 256 MiB: the indexes are built in memory
    db.execute("BEGIN")
    cards = card_rows(spec, item_ids, now_ms, rng)
    db.executemany(
        "INSERT INTO cards (id, set_name, item_id, phase, step, stability, difficulty, due, "
        "last_review, reps, fails, introduced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        cards,
    )
    bench = [(c[0], c[1], c[2]) for c in cards if c[1] == spec.set_name]
    others = [(c[0], c[1], c[2]) for c in cards if c[1] != spec.set_name]
    for sessions, reviews in review_batches(spec, bench, others, now_ms, rng):
        db.executemany(
            "INSERT INTO sessions (id, set_name, mode, started, ended) VALUES (?, ?, ?, ?, ?)",
            sessions,
        )
        db.executemany(
            "INSERT INTO reviews (card_id, session_id, set_name, item_id, reviewed_at, rating, "
            "answer, correct, duration_ms, phase_before, cram, card_before) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            reviews,
        )
        print(".", end="", flush=True)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print()

    store = GeneratedStore(
        folder=folder,
        spec=spec,
        generated_at_ms=now_ms,
        bank_items=len(item_ids),
        seconds=time.perf_counter() - started,
        file_bytes=(folder / STORE_FILE).stat().st_size,
    )
    store.manifest.write_text(
        json.dumps(
            {
                "spec": asdict(spec),
                "generated_at_ms": now_ms,
                "bank_items": store.bank_items,
                "seconds": round(store.seconds, 1),
            },
            indent=2,
        )
    )
    return store


def card_rows(spec: StoreSpec, item_ids: list[str], now_ms: int, rng: random.Random) -> list[tuple]:
    """Every card, ordered by when it was introduced (so ids grow with time, as in real use).

    The benchmarked set gets the awkward mix a session has to sort out: cards due now, cards in
    (re)learning within the learn-ahead window, leeches, cards due over the coming weeks, cards
    of items since removed from the bank, a few introduced today, and items never seen.
    """
    rows: list[tuple] = []
    unseen = max(1, len(item_ids) // 7)
    seen_ids = item_ids[: len(item_ids) - unseen]
    retired = [f"retired-{n:02d}" for n in range(RETIRED_ITEMS)]
    for n, item_id in enumerate(seen_ids + retired):
        rows.append((spec.set_name, item_id, *bench_card(n, now_ms, rng)))

    other_count = spec.cards - len(rows)
    per_set = [other_count // OTHER_SETS] * OTHER_SETS
    for k in range(other_count % OTHER_SETS):
        per_set[k] += 1
    for k, size in enumerate(per_set):
        for j in range(size):
            rows.append((f"course-{k:04d}", f"card-{j:03d}", *ordinary_card(now_ms, rng)))

    rows.sort(key=lambda row: row[-1])  # by `introduced`
    return [(card_id, *row) for card_id, row in enumerate(rows, start=1)]


def bench_card(n: int, now_ms: int, rng: random.Random) -> tuple:
    """(phase, step, stability, difficulty, due, last_review, reps, fails, introduced)."""
    introduced = now_ms - rng.randint(30, HISTORY_DAYS) * DAY_MS
    reps, fails = rng.randint(8, 60), rng.randint(0, 2)
    kind = n % 8
    if kind == 0:  # learning, due within the learn-ahead window or overdue
        phase, step, due = 1, rng.randint(0, 1), now_ms + rng.randint(-60, 15) * MINUTE_MS
        reps, introduced = rng.randint(1, 2), now_ms - rng.randint(1, 300) * MINUTE_MS
    elif kind == 1:  # relapsed into relearning, and a leech
        phase, step, due = 3, 0, now_ms + rng.randint(-120, 10) * MINUTE_MS
        fails = rng.randint(4, 9)
    elif kind in (2, 3):  # review, due now or overdue
        phase, step, due = 2, None, now_ms - rng.randint(0, 20 * 24) * 3_600_000
    elif kind == 4:  # review leech, due in the coming week
        phase, step, due = 2, None, now_ms + rng.randint(1, 7 * 24) * 3_600_000
        fails = rng.randint(4, 12)
    else:  # review, due over the coming weeks
        phase, step, due = 2, None, now_ms + rng.randint(1, 40 * 24) * 3_600_000
    stability = None if phase == 1 and reps == 1 else round(rng.uniform(0.5, 120.0), 4)
    difficulty = round(rng.uniform(1.0, 10.0), 4)
    last_review = min(now_ms - MINUTE_MS, due - rng.randint(1, 30) * DAY_MS)
    return phase, step, stability, difficulty, due, last_review, reps, fails, introduced


def ordinary_card(now_ms: int, rng: random.Random) -> tuple:
    introduced = now_ms - rng.randint(1, HISTORY_DAYS) * DAY_MS
    roll = rng.random()
    if roll < 0.04:
        phase, step, due = 1, 0, now_ms + rng.randint(-3 * 24 * 60, 10) * MINUTE_MS
    elif roll < 0.07:
        phase, step, due = 3, 0, now_ms + rng.randint(-3 * 24 * 60, 10) * MINUTE_MS
    else:
        phase, step, due = 2, None, now_ms + rng.randint(-60, 365) * DAY_MS
    stability = round(rng.uniform(0.3, 365.0), 4)
    difficulty = round(rng.uniform(1.0, 10.0), 4)
    last_review = min(now_ms - MINUTE_MS, due - rng.randint(1, 60) * DAY_MS)
    fails = rng.choices([0, 1, 2, 3, 4, 6, 9], weights=[60, 20, 9, 5, 3, 2, 1])[0]
    return (
        phase,
        step,
        stability,
        difficulty,
        due,
        max(introduced, last_review),
        rng.randint(1, 40),
        fails,
        introduced,
    )


def review_batches(
    spec: StoreSpec,
    bench: list[tuple],
    others: list[tuple],
    now_ms: int,
    rng: random.Random,
    days_per_batch: int = 10,
):
    """Yield (sessions, reviews) rows in time order, a few days at a time.

    Reviews fall uniformly over the past two years (so some fall today); the benchmarked set
    gets BENCH_REVIEW_SHARE of them, retired items included. Each run of about 25 consecutive
    reviews forms one session.
    """
    start_ms = now_ms - HISTORY_DAYS * DAY_MS
    span_ms = now_ms - MINUTE_MS - start_ms
    batches = HISTORY_DAYS // days_per_batch
    bench_total = round(spec.reviews * BENCH_REVIEW_SHARE)
    session_id = 0
    for b in range(batches):
        lo = start_ms + span_ms * b // batches
        hi = start_ms + span_ms * (b + 1) // batches
        n_bench = bench_total * (b + 1) // batches - bench_total * b // batches
        n_all = spec.reviews * (b + 1) // batches - spec.reviews * b // batches
        picks = [rng.choice(bench) for _ in range(n_bench)]
        picks += [rng.choice(others) for _ in range(n_all - n_bench)]
        times = sorted(rng.randrange(lo, hi) for _ in picks)
        rng.shuffle(picks)
        sessions, reviews = [], []
        for k, (card, at) in enumerate(zip(picks, times, strict=True)):
            if k % 25 == 0:
                session_id += 1
                cram = rng.random() < 0.05
                sessions.append(
                    (
                        session_id,
                        card[1],
                        "cram" if cram else "review",
                        at,
                        min(at + 25 * MINUTE_MS, now_ms),
                    )
                )
            reviews.append(review_row(card, session_id, at, cram, rng))
        yield sessions, reviews


ANSWERS = ["softmax(Q K^T / sqrt(d_k)) V", "(T_q, T_k)", "8", "1/sqrt(d_k)", "2", None, None]


def review_row(card: tuple, session_id: int, at: int, cram: bool, rng: random.Random) -> tuple:
    card_id, set_name, item_id = card
    rating = rng.choices([1, 2, 3, 4], weights=[12, 8, 70, 10])[0]
    phase_before = rng.choices([0, 1, 2, 3], weights=[6, 10, 74, 10])[0]
    answer = rng.choice(ANSWERS)
    correct = None if answer is None else int(rating > 1)
    card_before = None
    if phase_before:
        card_before = json.dumps(
            [
                phase_before,
                0 if phase_before != 2 else None,
                round(rng.uniform(0.5, 200), 4),
                round(rng.uniform(1, 10), 4),
                at + rng.randint(-5, 5) * DAY_MS,
                at - rng.randint(1, 30) * DAY_MS,
                rng.randint(1, 40),
                rng.randint(0, 5),
            ]
        )
    return (
        card_id,
        session_id,
        set_name,
        item_id,
        at,
        rating,
        answer,
        correct,
        rng.randint(1_500, 90_000),
        phase_before,
        int(cram),
        card_before,
    )


def table_counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("cards", "reviews", "sessions")
        }
    finally:
        db.close()


# -- measuring ----------------------------------------------------------------------------------
@dataclass
class Command:
    label: str
    argv: list[str]
    first_question: bool = False  # time to the `[1] ` line instead of to exit
    check_stats: bool = False
    runs: list[float] = field(default_factory=list)
    exit_runs: list[float] = field(default_factory=list)  # a session's spawn-to-exit times


class CommandFailed(RuntimeError):
    pass


def run_once(command: Command, env: dict[str, str]) -> tuple[float, float | None]:
    """Seconds from spawn to exit, and (for a session) from spawn to the first question."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            command.argv,
            stdin=subprocess.PIPE if command.first_question else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
        watchdog = threading.Timer(COMMAND_TIMEOUT_S, proc.kill)
        watchdog.start()
        try:
            first = None
            head = b""
            if command.first_question:
                assert proc.stdin is not None and proc.stdout is not None
                while line := proc.stdout.readline():
                    head += line
                    if line.startswith(b"[1] "):
                        first = time.perf_counter() - started
                        break
                # An empty line ends the session (scripted mode).
                try:
                    proc.stdin.write(b"\n")
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            assert proc.stdout is not None
            out = proc.stdout.read()  # stderr goes to a file, so only stdout can fill up
            proc.wait()
            total = time.perf_counter() - started
        finally:
            watchdog.cancel()
        err.seek(0)
        stderr = err.read().decode(errors="replace").strip()
    out = head + out
    if proc.returncode != 0:
        raise CommandFailed(f"{command.label}: exit code {proc.returncode}: {stderr[-2000:]}")
    if command.first_question and first is None:
        raise CommandFailed(
            f"{command.label}: no line starting with '[1] ' (no question asked?)"
            f"\n{out.decode(errors='replace')[-2000:]}"
        )
    if command.check_stats:
        try:
            stats = json.loads(out)
        except ValueError as exc:
            raise CommandFailed(f"{command.label}: output is not JSON ({exc})") from exc
        if not stats.get("reviews", 0) > 0:
            raise CommandFailed(f"{command.label}: the stats show no reviews: {stats}")
    return total, first


def measure(commands: list[Command], env: dict[str, str], runs: int) -> None:
    """One warm-up round, then `runs` rounds; rounds interleave the commands, so that a burst of
    load on the shared machine hits every command alike instead of one command's runs."""
    for round_no in range(runs + 1):
        for command in commands:
            total, first = run_once(command, env)
            if round_no > 0 and first is not None:
                command.runs.append(first)
                command.exit_runs.append(total)
            elif round_no > 0:
                command.runs.append(total)
        print(f"  round {round_no}/{runs}" + (" (warm-up)" if round_no == 0 else ""), flush=True)


# -- reporting ----------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per command (7)")
    parser.add_argument(
        "--set", default=DEFAULT_SET, help="the set to benchmark (15; falls back to demo)"
    )
    parser.add_argument("--regenerate", action="store_true", help="build the store afresh")
    parser.add_argument("--cards", type=int, default=100_000, help="cards in the store")
    parser.add_argument("--reviews", type=int, default=1_000_000, help="reviews in the store")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()

    attnquiz = Path(sys.executable).parent / "attnquiz"
    if not attnquiz.is_file():
        print(
            f"no console script {attnquiz}; install first: "
            f"{sys.executable} -m pip install -e '{REPO}[test]'",
            file=sys.stderr,
        )
        return 2

    set_name, item_ids = usable_set(args.set)
    digest = hashlib.sha256("\n".join(item_ids).encode()).hexdigest()[:16]
    spec = StoreSpec(set_name, digest, args.cards, args.reviews, args.seed)
    store = None if args.regenerate else cached_store(spec)
    if store is None:
        print(
            f"generating a store of {spec.cards:,} cards and {spec.reviews:,} reviews "
            f"(set {set_name}) in {store_folder(spec)}",
            flush=True,
        )
        store = generate_store(spec)
        print(f"generated in {store.seconds:.1f} s, {store.file_bytes / 1e6:.0f} MB")
    else:
        print(
            f"using the cached store {store.folder} (generated in {store.seconds:.1f} s; "
            "--regenerate to rebuild)"
        )
    counts = table_counts(store.folder / STORE_FILE)

    with tempfile.TemporaryDirectory(prefix="attnquiz-bench-") as tmp:
        home = Path(tmp) / "store"
        shutil.copytree(store.folder, home)
        env = {
            **os.environ,
            "ATTNQUIZ_HOME": str(home),
            # The store's "now": the same cards are due however old the cached store is.
            "ATTNQUIZ_NOW": datetime.fromtimestamp(store.generated_at_ms / 1000, UTC).isoformat(),
            "NO_COLOR": "1",
            "COLUMNS": "120",
        }
        env.pop("ATTNQUIZ_DEBUG", None)
        aq = str(attnquiz)
        commands = [
            Command("python -c pass", [sys.executable, "-c", "pass"]),
            Command("attnquiz --help", [aq, "--help"]),
            Command(f"attnquiz {set_name}: first question", [aq, set_name], first_question=True),
            Command(
                f"attnquiz stats {set_name} --json",
                [aq, "stats", set_name, "--json"],
                check_stats=True,
            ),
            Command(f"attnquiz list {set_name}", [aq, "list", set_name]),
        ]
        print(f"measuring {args.runs} runs of each command after one warm-up round")
        try:
            measure(commands, env, args.runs)
        except CommandFailed as exc:
            print(f"failed: {exc}", file=sys.stderr)
            return 1

    report(commands, store, counts, args.runs)
    return 0


def usable_set(name: str) -> tuple[str, list[str]]:
    """`name` and its item ids if attnquiz can load it now, else the test fixture set `demo`."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            return name, bank_item_ids(name, Path(tmp))
        except Exception as exc:  # a bank being written may fail in any way; say so, go on
            if name == "demo":
                raise
            print(
                f"set {name} does not load ({type(exc).__name__}: {exc}); "
                "benchmarking the set demo instead",
                file=sys.stderr,
            )
            return "demo", bank_item_ids("demo", Path(tmp))


@dataclass(frozen=True)
class Figure:
    """One row of the report."""

    command: str
    median_s: float
    min_s: float
    ratio_to_python_pass: float
    under_budget: bool | None  # None for the floor itself
    runs_s: list[float]


def figures(commands: list[Command]) -> list[Figure]:
    floor = statistics.median(commands[0].runs)
    series = []
    for c in commands:
        series.append((c.label, c.runs, c is not commands[0]))
        if c.exit_runs:
            # The same processes, timed to exit: the empty answer, closing the session, summary.
            session = c.label.removesuffix(": first question")
            series.append((f"{session}: to exit after an empty answer", c.exit_runs, True))
    return [
        Figure(
            command=label,
            median_s=round(statistics.median(runs_s), 4),
            min_s=round(min(runs_s), 4),
            ratio_to_python_pass=round(statistics.median(runs_s) / floor, 1),
            under_budget=statistics.median(runs_s) < BUDGET_S if budgeted else None,
            runs_s=[round(r, 4) for r in runs_s],
        )
        for label, runs_s, budgeted in series
    ]


def report(
    commands: list[Command], store: GeneratedStore, counts: dict[str, int], runs: int
) -> None:
    rows = figures(commands)
    load = [round(x, 2) for x in os.getloadavg()]
    machine = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
        "load_average": load,
    }
    file_mb = round(store.file_bytes / 1e6, 1)
    print()
    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, SQLite "
        f"{sqlite3.sqlite_version}, load average {' '.join(map(str, load))}"
    )
    print(
        f"store: {counts['cards']:,} cards, {counts['reviews']:,} reviews, "
        f"{counts['sessions']:,} sessions, {file_mb} MB; set {store.spec.set_name} has "
        f"{store.bank_items} items in the bank"
    )
    print(f"{runs} runs each after one warm-up; budget {BUDGET_S} s (information, not a test)\n")
    width = max(len(r.command) for r in rows)
    print(f"{'command':<{width}}  {'median s':>8}  {'min s':>7}  {'× pass':>6}  budget")
    for r in rows:
        budget = {None: "", True: "under", False: "OVER"}[r.under_budget]
        print(
            f"{r.command:<{width}}  {r.median_s:>8.3f}  {r.min_s:>7.3f}  "
            f"{r.ratio_to_python_pass:>6.1f}  {budget}"
        )

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "startup.json"
    result = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "budget_s": BUDGET_S,
        "runs": runs,
        "machine": machine,
        "store": {
            **counts,
            "set": store.spec.set_name,
            "bank_items": store.bank_items,
            "file_mb": file_mb,
            "generation_s": round(store.seconds, 1),
        },
        "commands": [asdict(r) for r in rows],
    }
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwritten to {out.relative_to(REPO)}")


if __name__ == "__main__":
    sys.exit(main())
