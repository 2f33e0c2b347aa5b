"""Timed drill attempts in the store: the migration, personal bests, the trend, the command."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from rich.console import Console

from engine.drills.clocked.records import TimedRecords
from engine.drills.clocked.run import DrillRun
from engine.drills.timed.grading import BankChecker, question_text
from engine.drills.timed.results import show_results, sparkline
from engine.drills.timed.run import run_drill
from engine.paths import STORE_FILE
from engine.store import open_store
from engine.store.db import APPLICATION_ID
from engine.store.migrations import MIGRATIONS
from tests.conftest import Run, warm_checker
from tests.engine.drills.pacing import FakeClock
from tests.engine.drills.test_timed_drill import EQUATION, RIGHT_ANSWERS, PacedFrontend, drill_15


def timed_run(
    store_home: Path, records: TimedRecords, clock: FakeClock, seconds: list[float]
) -> DrillRun:
    drill, qset = drill_15(store_home)
    frontend = PacedFrontend(RIGHT_ANSWERS, clock, iter(seconds))
    run = run_drill(
        drill,
        frontend,
        BankChecker(qset, warm_checker()),
        clock,
        prompt_of=question_text(qset),
        save=records.save,
    )
    return run


def results_text(store_home: Path, records: TimedRecords, run: DrillRun) -> str:
    drill, qset = drill_15(store_home)
    out = io.StringIO()
    console = Console(file=out, width=100, no_color=True)
    show_results(console, drill, qset, run, records.compare(run))
    return out.getvalue()


def test_the_timed_tables_are_added_to_a_store_from_before_them(store_home: Path) -> None:
    # A store as the first release left it: only the first migration, with one review logged.
    path = store_home / STORE_FILE
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied INTEGER NOT NULL)")
    name, first = MIGRATIONS[0]
    assert name == "0001_cards_reviews_sessions"
    with db:
        first(db)
        db.execute("INSERT INTO migrations VALUES (?, 0)", (name,))
        db.execute(
            "INSERT INTO reviews (set_name, item_id, reviewed_at, rating, phase_before) "
            "VALUES ('15', 'var-dot', 1, 3, 0)"
        )
    db.close()

    store = open_store(store_home)
    try:
        applied = {row[0] for row in store.db.execute("SELECT name FROM migrations")}
        assert "0002_timed_drills" in applied
        assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 1
        assert store.db.execute("SELECT count(*) FROM timed_runs").fetchone()[0] == 0
    finally:
        store.close()


def test_every_part_is_saved_as_soon_as_it_is_done(store_home: Path) -> None:
    store = open_store(store_home)
    try:
        records = TimedRecords(store.db)
        run = timed_run(store_home, records, FakeClock(), [20, 10, 10, 30, 15, 40, 90])
        rows = store.db.execute(
            "SELECT part, status, attempts, duration_ms FROM timed_parts ORDER BY position"
        ).fetchall()
        assert rows[0] == ("equation", "right", 1, 20_000)
        assert rows[-1] == ("implementation", "right", 1, 90_000)
        (total, within) = store.db.execute(
            "SELECT total_ms, within_limit FROM timed_runs WHERE id = ?", (run.run_id,)
        ).fetchone()
        assert (total, within) == (215_000, 1)
    finally:
        store.close()


def test_the_second_run_is_shown_against_the_first_with_the_trend(store_home: Path) -> None:
    store = open_store(store_home)
    try:
        records = TimedRecords(store.db)
        clock = FakeClock()
        timed_run(store_home, records, clock, [20, 10, 10, 30, 15, 40, 90])
        clock.advance(86_400)
        # Faster on the equation (15 s against 20 s), slower on the code (100 s against 90 s).
        second = timed_run(store_home, records, clock, [15, 10, 10, 30, 15, 40, 100])
        comparison = records.compare(second)
        assert comparison.best_parts["equation"] == 20
        assert comparison.best_parts["implementation"] == 90
        assert comparison.best_total == 215
        assert comparison.trend == [(215, True), (220, True)]
        text = results_text(store_home, records, second)
    finally:
        store.close()
    assert "0:15 new best" in text
    assert "1:40 " in text and "1:30" in text  # this run's code against the best before
    assert "last 2 runs: ▁█  3:35 → 3:40" in text
    assert "all 5 parts right in 3:40, within 5:00" in text


def test_the_sparkline_spans_its_lowest_to_its_highest_value() -> None:
    assert sparkline([300, 200, 100]) == "█▅▁"
    assert sparkline([120, 120]) == "▁▁"


def test_a_scripted_run_through_the_command_line_saves_every_attempt(
    store_home: Path, run: Run
) -> None:
    # Through `attnquiz drill 15 --timed` (in this process: the drill is read as lines, and each
    # attempt is saved in the store a later process reads).
    now = {"ATTNQUIZ_NOW": "2026-03-01T09:00:00"}
    done = run("drill", "15", "--timed", input="\n".join(RIGHT_ANSWERS) + "\n", env=now)
    assert done.returncode == 0, done.stderr
    assert "all 5 parts right" in done.stdout
    assert done.stderr == ""

    stopped = run("drill", "15", "--timed", input=EQUATION + "\n\n", env=now)
    assert stopped.returncode == 1, stopped.stderr
    assert "1 of 5 parts right" in stopped.stdout
    assert "last 2 runs" in stopped.stdout

    store = open_store(store_home)
    try:
        runs = store.db.execute("SELECT within_limit FROM timed_runs ORDER BY id").fetchall()
    finally:
        store.close()
    assert runs == [(1,), (0,)]


def test_a_set_without_a_timed_drill_is_a_usage_error(store_home: Path, capsys) -> None:
    from engine.commands.clocked import run_timed
    from engine.commands.errors import run_guarded

    assert run_guarded(lambda: run_timed("demo", None)) == 2
    assert "set demo has no timed drill" in capsys.readouterr().err


def test_a_run_of_skips_is_neither_in_the_trend_nor_a_best(store_home: Path) -> None:
    store = open_store(store_home)
    try:
        records = TimedRecords(store.db)
        clock = FakeClock()
        drill, qset = drill_15(store_home)
        skips = PacedFrontend([":skip"] * len(RIGHT_ANSWERS), clock, iter([1.0] * 7))
        skipped = run_drill(
            drill,
            skips,
            BankChecker(qset, warm_checker()),
            clock,
            prompt_of=question_text(qset),
            save=records.save,
        )
        assert not any(part.right for part in skipped.parts)
        clock.advance(86_400)
        first = timed_run(store_home, records, clock, [20, 10, 10, 30, 15, 40, 90])
        # Before the real run: no best score at all, rather than a best of 0 parts.
        assert records.best_score(first) is None
        clock.advance(86_400)
        second = timed_run(store_home, records, clock, [15, 10, 10, 30, 15, 40, 100])
        comparison = records.compare(second)
    finally:
        store.close()
    # The few seconds of skipping would have been the fastest "run" of the three.
    assert comparison.trend == [(215, True), (220, True)]
    assert comparison.best_total == 215


def test_a_clock_set_back_during_a_run_leaves_no_negative_time_in_the_store(
    store_home: Path,
) -> None:
    # The wall clock put back an hour during the second part (a manual change, an NTP step):
    # its -3600 s were saved as the part's duration, and the next opening refused the whole
    # store as damaged ("impossible duration"). Time that runs backwards counts as none.
    store = open_store(store_home)
    try:
        records = TimedRecords(store.db)
        run = timed_run(store_home, records, FakeClock(), [20, -3600, 10, 30, 15, 40, 90])
        # The same run with the clock standing still instead of going back.
        still = timed_run(store_home, records, FakeClock(), [20, 0, 10, 30, 15, 40, 90])
        assert [p.seconds for p in run.parts] == [p.seconds for p in still.parts]
        assert run.total_seconds == still.total_seconds == 205
    finally:
        store.close()
    reopened = open_store(store_home)  # raised StoreError: impossible duration
    try:
        rows = reopened.db.execute("SELECT duration_ms FROM timed_parts ORDER BY position")
        assert min(row[0] for row in rows) >= 0
    finally:
        reopened.close()
