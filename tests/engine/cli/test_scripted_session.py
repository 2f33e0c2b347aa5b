"""Scripted sessions (stdin not a terminal), exactly as docs/spec.md describes them."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
from pathlib import Path

import pytest

from engine.paths import STORE_FILE
from tests.engine.choice_bank import write_choices
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


def test_settings_chosen_once_hold_for_every_command(run, store_home) -> None:
    result = run("demo", "--retention", "0.8", "--new", "2", input="3\na\n")
    assert result.returncode == 0, result.stderr
    stats = json.loads(run("stats", "demo", "--json").stdout)
    assert stats["desired_retention"] == 0.8  # not the default 0.9
    settings = json.loads(run("settings", "--json").stdout)
    assert (settings["retention"], settings["new_per_day"]) == (0.8, 2)
    # The next session keeps the limit of 2 new cards a day: both are used up.
    again = run("demo", input="3\n")
    assert ", new)" not in again.stdout  # only the two cards still learning come back
    assert "5 new cards wait beyond today's limit" in again.stdout
    changed = run("settings", "--new", "3", "--retention", "0.85")
    assert changed.returncode == 0 and "0.85" in changed.stdout
    third = run("demo", input="x\n" * 6)
    assert "4 new cards wait beyond today's limit" in third.stdout  # one more new card


def test_new_zero_says_how_many_new_cards_wait(run) -> None:
    result = run("demo", "--new", "0", input="")
    assert result.returncode == 0
    assert "nothing reviewed" in result.stdout
    assert "7 new cards wait beyond today's limit" in result.stdout


def test_a_bad_setting_is_one_line_and_exit_2(run) -> None:
    result = run("settings", "--leeches", "delete")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "'suspend' or 'flag'" in result.stderr


def test_a_right_answer_after_a_hint_is_rated_hard(run, store_home) -> None:
    write_choices(store_home)
    result = run("choices", "--new", "1", input=":hint\na\n")
    assert "hint: Each query spreads its weight over the keys." in result.stdout
    assert "rated hard" in result.stdout
    db = sqlite3.connect(store_home / STORE_FILE)
    assert db.execute("SELECT rating, correct FROM reviews").fetchall() == [(2, 1)]
    db.close()


def test_nothing_to_undo_on_the_first_card_does_not_ask_it_again(run, store_home) -> None:
    result = run("demo", input=":undo\n4\n")
    assert "nothing to undo" in result.stdout
    assert result.stdout.count("[1] recall-one") == 1
    assert reviews(store_home) == [("recall-one", 4, "4")]


def test_confidence_adds_one_line_after_a_typed_answer(run, store_home) -> None:
    # axis right but unsure: hard; scale wrong and sure: its explanation, and it comes back
    # after two other cards.
    write_choices(store_home)
    result = run("choices", "--new", "3", "--confidence", input="a\nu\nb\ns\na\ns\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("sure or unsure? (s/u)") == 3
    assert "you were sure: this card comes back in a moment" in result.stdout
    db = sqlite3.connect(store_home / STORE_FILE)
    rows = db.execute("SELECT item_id, rating, confidence FROM reviews ORDER BY id").fetchall()
    db.close()
    assert rows == [("axis", 2, 0), ("scale", 1, 1), ("mask", 3, 1)]
    order = re.findall(r"^\[\d+\] (\S+)", result.stdout, flags=re.M)
    assert order[:4] == ["axis", "scale", "mask", "scale"]


def test_the_confirmed_interval_is_the_stored_and_listed_one(run, store_home) -> None:
    result = run("demo", "--new", "1", input="4\n")
    (shown,) = re.findall(r"next review in (\d+ \w+)", result.stdout)
    db = sqlite3.connect(store_home / STORE_FILE)
    ((due, last),) = db.execute("SELECT due, last_review FROM cards").fetchall()
    db.close()
    from datetime import timedelta

    from engine.ui.describe import interval

    assert interval(timedelta(milliseconds=due - last)) == shown and shown.endswith(" d")
    listed = run("list", "demo").stdout
    assert f"in {shown}" in listed


def test_stats_and_list_show_reviews_by_kind_and_the_drills(run, store_home) -> None:
    run("demo", "--new", "1", input="4\n")
    run("demo", "--cram", input="3\n")
    stats = json.loads(run("stats", "demo", "--json").stdout)
    assert stats["reviews_by_kind"] == {"scheduled": 1, "cram": 1, "drill": 0}
    listed = run("list", "15")
    assert listed.returncode == 0, listed.stderr
    assert "drill-" in listed.stdout
    fifteen = json.loads(run("stats", "15", "--json").stdout)
    assert fifteen["drills"] and all(d["phase"] == "new" for d in fifteen["drills"])


def test_unsuspend_brings_a_leech_back(run, store_home) -> None:
    # number-std missed four times in one session (each miss comes back while learning).
    # (`9` is a wrong answer; an unreadable line would be asked again, not missed.)
    result = run("demo", "--tag", "variance", "--new", "1", input="9\n" * 6)
    assert "suspended: number-std has been missed 4 times" in result.stdout
    assert "bring it back with `attnquiz unsuspend demo number-std`" in result.stdout
    assert "suspended" in run("list", "demo").stdout
    assert json.loads(run("stats", "demo", "--json").stdout)["suspended"] == ["number-std"]
    unknown = run("unsuspend", "demo", "nope")
    assert unknown.returncode == 2 and "no item 'nope'" in unknown.stderr
    back = run("unsuspend", "demo", "number-std")
    assert back.returncode == 0 and "back in the reviews: number-std" in back.stdout
    assert json.loads(run("stats", "demo", "--json").stdout)["suspended"] == []


def test_help_shows_no_python_type_names(run) -> None:
    for command in ("quiz", "stats", "settings", "unsuspend", "drill", "submit"):
        text = run(command, "--help").stdout
        assert "<bool>" not in text and "list[" not in text and "<str>" not in text, command


def test_ctrl_c_after_a_graded_answer_saves_it_with_the_suggested_rating(spawn, store_home) -> None:
    proc = spawn("demo", "--new", "3", "--confidence")
    assert proc.stdin is not None and proc.stdout is not None
    read_until(proc, "[1] ")
    proc.stdin.write("3\n")
    proc.stdin.flush()
    read_until(proc, "[2] ")
    proc.stdin.write("a\n")  # right; graded at once, the confidence line not yet read
    proc.stdin.flush()
    read_until(proc, "sure or unsure?")
    proc.send_signal(signal.SIGINT)
    assert proc.wait() == 130
    assert "saved: choice-axis rated good" in proc.stdout.read()
    assert reviews(store_home) == [("recall-one", 3, "3"), ("choice-axis", 3, "a")]


@pytest.mark.parametrize("zone", ["UTC+24", "XXX-24:59:59"])
def test_a_time_zone_with_an_impossible_offset_still_reviews_and_saves(
    zone: str, run, store_home, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The C library accepts a full day's offset in TZ; Python's datetime refuses it. Calendar
    # days then fall back to UTC's instead of every command ending in an internal error.
    import time

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        result = run("demo", input=ALL_RIGHT)
        stats = run("stats", "demo", "--json")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert result.returncode == 0, result.stderr
    assert len(reviews(store_home)) == 7
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["reviews"] == 7
