"""The clocked drills at a real (pseudo-)terminal: the live countdown while the learner types,
each answer saved as it is given, and Ctrl-C ending the run with 130 and the run kept."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
from engine.drills.rapid.rounds import draw_questions
from engine.paths import STORE_FILE

# A real process driven through a pseudo-terminal.
pytestmark = pytest.mark.slow

SEED = 7


def first_two_parts(store_home: Path) -> list[tuple[str, int]]:
    """The saved status of the run's first two parts, and whether the run was interrupted."""
    db = sqlite3.connect(store_home / STORE_FILE)
    try:
        return db.execute(
            "SELECT p.status, r.interrupted FROM timed_parts p JOIN timed_runs r "
            "ON r.id = p.run_id ORDER BY p.position LIMIT 2"
        ).fetchall()
    finally:
        db.close()


def test_ctrl_c_in_a_rapid_round_keeps_the_answers_and_exits_130(terminal, store_home) -> None:
    found = rapid_drill_file("15", store_home)
    assert found is not None
    drill = load_rapid_drill(*found, "15")
    questions = draw_questions(drill, drill.section.questions, random.Random(SEED))
    t = terminal("drill", "15", "--rapid", "--seed", str(SEED))
    t.expect(f"[1/{len(questions)}]")
    t.expect(f"left · question 1/{len(questions)} · 0 right")  # live below the answer being typed
    t.line(questions[0].answer)
    t.expect("✓ right")
    t.expect(f"[2/{len(questions)}]")
    t.interrupt()
    assert t.finish() == 130
    assert "interrupted: this round is saved" in t.screen
    assert first_two_parts(store_home) == [("right", 1), ("stopped", 1)]


def test_a_timed_drill_shows_the_time_left_saves_the_answer_and_ctrl_c_exits_130(
    terminal, store_home
) -> None:
    t = terminal("drill", "15", "--timed")
    t.expect("[1/5]")
    t.expect("left · part 1/5")  # live below the answer being typed
    t.line("softmax(Q K^T / sqrt(d_k)) V")
    t.expect("✓ right")
    t.expect("[2/5]")
    t.expect("left · part 2/5")
    t.line("(T_q, T_k")
    t.expect("not graded")  # unreadable: asked again, no attempt spent
    t.expect("left · part 2/5")
    t.line("(T_k, T_q)")
    t.expect("✗ not yet")
    t.expect("left · part 2/5")  # a second try, still against the same clock
    t.interrupt()
    assert t.finish() == 130
    assert "interrupted" in t.rest()
    assert first_two_parts(store_home) == [("right", 1), ("stopped", 1)]
