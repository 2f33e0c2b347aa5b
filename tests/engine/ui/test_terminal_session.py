"""The review loop at a real (pseudo-)terminal: what the screen says is what the store holds."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from engine.paths import STORE_FILE
from engine.ui.describe import interval
from tests.engine.choice_bank import write_choices
from tests.engine.ui.terminal import Terminal

# Every test drives a real process through a pseudo-terminal.
pytestmark = pytest.mark.slow

REVEAL = "(:hint :undo :quit) › "
RATE = "(:undo :quit) › "


def rows(home: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    db = sqlite3.connect(home / STORE_FILE)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def stored_wait(home: Path, item_id: str) -> str:
    """The interval the store holds for the card: its due time after its last review."""
    ((due, last),) = rows(home, f"SELECT due, last_review FROM cards WHERE item_id = '{item_id}'")
    return interval(timedelta(milliseconds=due - last))


ANSWERS = "SELECT item_id, rating, answer FROM reviews ORDER BY id"


def reveal_and_rate(t: Terminal, key: str) -> None:
    """Reveal the self-rated recall card and rate it `key`."""
    t.expect(REVEAL)
    t.line("")
    t.expect(RATE)
    t.line(key)


def labels(screen: str) -> dict[str, str]:
    """`1 again (1 min)  2 hard (6 min) ...` as {"again": "1 min", ...}."""
    return dict(re.findall(r"\d (again|hard|good|easy) \(([^)]+)\)", screen))


@pytest.mark.parametrize("key", ["1", "2", "3", "4"])
def test_the_interval_on_the_rating_key_is_the_one_applied(terminal, store_home, run, key) -> None:
    t = terminal("demo", "--new", "1")
    t.expect(REVEAL)
    t.line("")
    shown = labels(t.expect(RATE))
    assert set(shown) == {"again", "hard", "good", "easy"}
    t.line(key)
    grade = {"1": "again", "2": "hard", "3": "good", "4": "easy"}[key]
    t.expect(f"next review in {shown[grade]}")
    if key != "4":  # still learning: it comes back within this session; leave it there
        t.expect(REVEAL)
        t.line(":quit")
    assert t.finish() == 0
    assert stored_wait(store_home, "recall-one") == shown[grade]
    listed = run("list", "demo")  # not interactive: in this process
    assert listed.returncode == 0, listed.stderr
    line = next(ln for ln in listed.stdout.splitlines() if "recall-one" in ln)
    assert f"in {shown[grade]}" in line


def test_ctrl_c_at_the_rating_prompt_saves_the_graded_answer(terminal, store_home) -> None:
    t = terminal("demo", "--new", "3")
    reveal_and_rate(t, "3")
    t.expect(REVEAL)
    t.line("a")  # choice-axis, right
    t.expect("Enter = good")
    t.expect(RATE)
    t.interrupt()
    t.expect("saved: choice-axis rated good")
    assert t.finish() == 130
    assert "every answer so far is saved" in t.screen
    assert rows(store_home, ANSWERS) == [
        ("recall-one", 3, None),
        ("choice-axis", 3, "a"),
    ]


def test_ctrl_c_before_rating_a_self_rated_card_says_it_is_not_saved(terminal, store_home) -> None:
    t = terminal("demo", "--new", "1")
    t.expect(REVEAL)
    t.line("")
    t.expect(RATE)
    t.interrupt()
    t.expect("not saved: recall-one was not rated yet")
    assert t.finish() == 130
    assert rows(store_home, "SELECT count(*) FROM reviews") == [(0,)]


def test_undo_at_the_rating_prompt_retypes_the_same_card(terminal, store_home) -> None:
    t = terminal("demo", "--new", "3")
    reveal_and_rate(t, "3")
    first = t.expect(REVEAL)
    assert "choice-axis · choice" in first and "card 2" in first
    t.line("b")  # a slip of the finger
    t.expect("✗ wrong")
    t.expect(RATE)
    t.line(":undo")
    shown = t.expect(REVEAL)
    assert "answer taken back: choice-axis comes again" in shown
    assert "choice-axis · choice" in shown and "recall-one ·" not in shown
    # The same number and counters as the first time it was asked.
    assert "card 2" in shown and "1 left · 1 learning" in first and "1 left · 1 learning" in shown
    t.line("a")
    t.expect(RATE)
    t.line("")
    t.expect(REVEAL)  # number-std
    t.line(":quit")
    assert t.finish() == 0
    assert rows(store_home, ANSWERS) == [
        ("recall-one", 3, None),
        ("choice-axis", 3, "a"),
    ]


def test_undo_at_a_question_takes_back_the_previous_card(terminal, store_home) -> None:
    t = terminal("demo", "--new", "2")
    reveal_and_rate(t, "4")
    t.expect(REVEAL)  # choice-axis
    t.line(":undo")
    shown = t.expect(REVEAL)
    assert "undone: recall-one comes again" in shown and "recall-one · recall · new" in shown
    t.line(":quit")
    assert t.finish() == 0
    assert rows(store_home, "SELECT count(*) FROM reviews") == [(0,)]


def test_nothing_to_undo_on_the_first_card_does_not_ask_it_again(terminal, store_home) -> None:
    t = terminal("demo", "--new", "1")
    t.expect(REVEAL)
    t.line(":undo")
    shown = t.expect(REVEAL)
    assert "nothing to undo" in shown
    assert "Write the attention equation." not in shown  # the card is not shown a second time
    t.line("")
    t.expect(RATE)
    t.line("4")
    assert t.finish() == 0
    assert t.screen.count("Write the attention equation.") == 1
    assert rows(store_home, "SELECT item_id, rating FROM reviews") == [("recall-one", 4)]


def test_a_right_answer_after_a_hint_suggests_hard(terminal, store_home) -> None:
    write_choices(store_home)
    t = terminal("choices", "--new", "1")
    t.expect(REVEAL)
    t.line(":hint")
    t.expect("hint: Each query spreads its weight over the keys.")
    t.line("a")
    t.expect("✓ correct")
    t.expect("suggested: hard (after a hint)")
    shown = t.expect(RATE)
    assert "Enter = hard" in shown
    t.line("")
    t.expect("next review in 6 min")
    t.expect(REVEAL)  # learning: back within the session
    t.line(":quit")
    assert t.finish() == 0
    assert rows(store_home, "SELECT item_id, rating, correct FROM reviews") == [("axis", 2, 1)]


def test_confidence_takes_one_key_and_unsure_suggests_hard(terminal, store_home) -> None:
    write_choices(store_home)
    t = terminal("choices", "--new", "2", "--confidence")
    t.expect(REVEAL)
    t.line("a")
    t.expect("sure? s sure · u unsure · Enter skip")
    t.type("u")  # one key, no Enter
    t.expect("suggested: hard (as you were unsure)")
    t.expect(RATE)
    t.line("")
    t.expect(REVEAL)  # scale
    t.line("b")
    t.expect("sure?")
    t.type("s")
    shown = t.expect(RATE)
    assert "The variance of a dot product" in shown  # the explanation in full view
    assert "you were sure: this card comes back in a moment" in shown
    t.line("")
    t.expect(REVEAL)
    t.line(":quit")
    assert t.finish() == 0
    assert rows(store_home, "SELECT item_id, rating, confidence FROM reviews ORDER BY id") == [
        ("axis", 2, 0),
        ("scale", 1, 1),
    ]
    # The setting is kept: the next session asks again without the option.
    t = terminal("choices")
    t.expect(REVEAL)  # scale, back from its learning step
    t.line("a")
    t.expect("sure?")
    t.interrupt()  # graded, not yet rated: saved as suggested
    t.expect("saved: scale rated good")
    assert t.finish() == 130


def test_new_zero_says_how_many_new_cards_wait(terminal, store_home) -> None:
    t = terminal("demo", "--new", "0")
    assert t.finish() == 0
    assert "nothing reviewed" in t.screen
    assert "7 new cards wait beyond today's limit" in t.screen
