"""The interactive front end: reveal, suggested rating, changing it, undo, quit."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from engine.bank.catalog import open_set
from engine.schedule import Scheduling
from engine.session import ReviewSession
from engine.store import open_store
from engine.ui.interactive import InteractiveFrontend
from engine.ui.loop import run_review
from tests.conftest import warm_checker

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def run_interactive(home: Path, keys: list[str], **kw: object) -> tuple[str, list[tuple]]:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    pending = iter(keys)

    def fake_input(prompt: str = "", **_: object) -> str:
        answer = next(pending, ":quit")
        console.print(prompt + answer)
        return answer

    console.input = fake_input  # type: ignore[method-assign]
    store = open_store(home)
    session = ReviewSession(
        store,
        open_set("demo", home),
        Scheduling(fuzz=False),
        lambda: NOW,
        checker=warm_checker(),
        **kw,  # type: ignore[arg-type]
    )
    run_review(session, InteractiveFrontend(console))
    session.finish()
    rows = store.db.execute("SELECT item_id, rating, answer FROM reviews ORDER BY id").fetchall()
    return out.getvalue(), rows


def test_self_rated_card_reveals_then_takes_a_rating(store_home: Path) -> None:
    screen, rows = run_interactive(store_home, ["", "4"])
    assert "softmax(Q Kᵀ / √d_k) V" in screen
    assert "4 easy" in screen
    assert rows == [("recall-one", 4, None)]


def test_a_typed_answer_suggests_the_rating_and_enter_accepts_it(store_home: Path) -> None:
    screen, rows = run_interactive(store_home, ["", "3", "a", "", "7", ""], new_per_day=3)
    assert "✓ correct" in screen and "✗ wrong" in screen
    assert rows == [("recall-one", 3, None), ("choice-axis", 3, "a"), ("number-std", 1, "7")]


def test_the_learner_may_overrule_the_suggested_rating(store_home: Path) -> None:
    _, rows = run_interactive(store_home, ["", "3", "b", "2"], new_per_day=2)
    assert rows[-1] == ("choice-axis", 2, "b")


def test_a_wrong_rating_key_asks_again(store_home: Path) -> None:
    screen, rows = run_interactive(store_home, ["", "9", "good"], new_per_day=1)
    assert "type 1, 2, 3 or 4" in screen
    assert rows == [("recall-one", 3, None)]


def test_undo_at_the_prompt_takes_back_the_previous_answer(store_home: Path) -> None:
    screen, rows = run_interactive(store_home, ["", "3", ":undo", "", "1"], new_per_day=2)
    assert "undone: recall-one" in screen
    assert rows == [("recall-one", 1, None)]


def test_hint_then_quit(store_home: Path) -> None:
    screen, rows = run_interactive(store_home, [":hint", ":quit"])
    assert "Three matrices, one softmax." in screen
    assert rows == []
