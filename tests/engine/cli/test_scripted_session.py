"""Scripted sessions (stdin not a terminal), exactly as docs/spec.md describes them."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import pytest

from engine.paths import STORE_FILE
from tests.engine.cli.conftest import read_until

ALL_RIGHT = "3\n1\n8\n(T_q, d_v)\nd\n64\n(T_q, T_k)\n"


def reviews(home: Path) -> list[tuple[str, int, str | None]]:
    db = sqlite3.connect(home / STORE_FILE)
    try:
        return db.execute("SELECT item_id, rating, answer FROM reviews ORDER BY id").fetchall()
    finally:
        db.close()


def test_a_full_session_of_right_answers(run, store_home) -> None:
    result = run("demo", input=ALL_RIGHT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("✓ correct") == 6  # the recall card is self-rated
    assert "[1] recall-one (recall, new)" in result.stdout
    assert "session: reviewed 7 · correct 7 (100%)" in result.stdout
    assert [r[0] for r in reviews(store_home)] == [
        "recall-one",
        "choice-axis",
        "number-std",
        "shape-out",
        "expr-var",
        "number-var",
        "shape-scores",
    ]
    stats = json.loads(run("stats", "demo", "--json").stdout)
    assert stats["reviews"] == 7 and stats["new"] == 0


def test_wrong_answers_are_rated_again_and_explained(run, store_home) -> None:
    result = run("demo", input="1\nb\n9.5\n(T_q, d_k)\nsqrt(d_k)\n8\n(T_q, d_k)\n")
    assert result.returncode == 0, result.stderr
    # The items' known mistakes, for an expression, a number and a shape:
    assert "that is the standard deviation." in result.stdout
    assert "8 is the standard deviation; the variance is its square." in result.stdout
    assert "the d_k dimension is summed over in Q Kᵀ." in result.stdout
    assert [r[1] for r in reviews(store_home)] == [1] * 7


def test_a_line_that_is_no_rating_or_choice_counts_as_again_with_a_note(run, store_home) -> None:
    result = run("demo", input="maybe\nzebra\n")
    assert "not a rating" in result.stderr and "not one of the options" in result.stderr
    assert [r[1] for r in reviews(store_home)] == [1, 1]


def test_undo_takes_back_the_last_answer(run, store_home) -> None:
    result = run("demo", input="4\n:undo\n1\n")
    assert "undone: recall-one" in result.stdout
    assert result.stdout.count("[1] recall-one") == 2
    assert reviews(store_home) == [("recall-one", 1, "1")]


def test_an_empty_line_or_end_of_input_ends_the_session(run, store_home) -> None:
    assert run("demo", input="3\n\n2\n").returncode == 0
    assert len(reviews(store_home)) == 1
    assert run("demo", input="").returncode == 0


def test_hint_shows_the_hint_and_asks_again(run, store_home) -> None:
    result = run("demo", input=":hint\n3\n")
    assert "hint: Three matrices, one softmax." in result.stdout
    assert len(reviews(store_home)) == 1


def test_cram_leaves_the_schedule_alone(run, store_home) -> None:
    run("demo", input=ALL_RIGHT)
    before = json.loads(run("stats", "demo", "--json").stdout)
    run("demo", "--cram", input="1\n2\n1\n(T_q, d_k)\n0\n0\n(T_q, d_k)\n")
    after = json.loads(run("stats", "demo", "--json").stdout)
    assert after["due_per_day"] == before["due_per_day"]
    assert after["reviews"] == before["reviews"] + 7


@pytest.mark.slow
def test_sigkill_mid_session_loses_no_committed_answer(spawn, store_home) -> None:
    proc = spawn("demo")
    read_until(proc, "[1] ")
    answers = ["3", "1", "8"]
    for n, answer in enumerate(answers, start=2):
        assert proc.stdin is not None
        proc.stdin.write(answer + "\n")
        proc.stdin.flush()
        read_until(proc, f"[{n}] ")  # the next question is shown only after the commit
    proc.kill()
    proc.wait()
    assert [r[2] for r in reviews(store_home)] == answers


@pytest.mark.slow
def test_ctrl_c_saves_everything_and_exits_130(spawn, store_home) -> None:
    proc = spawn("demo")
    read_until(proc, "[1] ")
    assert proc.stdin is not None
    proc.stdin.write("3\n")
    proc.stdin.flush()
    read_until(proc, "[2] ")
    proc.send_signal(signal.SIGINT)
    assert proc.wait() == 130
    assert proc.stderr is not None and "saved" in proc.stderr.read()
    assert len(reviews(store_home)) == 1


@pytest.mark.slow
def test_stats_reads_while_two_sessions_write(spawn, run, store_home) -> None:
    first, second = spawn("demo"), spawn("demo", "--new", "5")
    for proc in (first, second):
        read_until(proc, "[1] ")
        assert proc.stdin is not None
        proc.stdin.write("3\n")
        proc.stdin.flush()
        read_until(proc, "[2] ")
    stats = run("stats", "demo", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["reviews"] == 2
    for proc in (first, second):
        proc.stdin.write("1\n\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        assert proc.wait() == 0
    assert len(reviews(store_home)) == 4
    db = sqlite3.connect(store_home / STORE_FILE)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def test_a_damaged_store_is_reported_in_one_line_and_left_untouched(run, store_home) -> None:
    path = store_home / STORE_FILE
    path.write_bytes(b"not a database at all" * 50)
    before = path.read_bytes()
    result = run("demo", input="3\n")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not an attnquiz store" in result.stderr
    assert path.read_bytes() == before
