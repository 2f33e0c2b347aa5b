"""`--with-schedule`: a card reviewed in attnquiz arrives in Anki as a review card, due the same
day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.cli import main
from engine.export.anki.schedule import review_for
from engine.schedule import CardState, Phase
from engine.store import ReviewRecord, open_store
from tests.engine.export.conftest import import_package, notes_by_item, plain

REVIEWED = "attention-equation"
DUE_IN_DAYS = 9


def reviewed_state(now: datetime) -> CardState:
    return CardState(
        phase=Phase.REVIEW,
        stability=12.5,
        difficulty=5.2,
        due=now + timedelta(days=DUE_IN_DAYS),
        last_review=now - timedelta(days=3),
        reps=5,
        fails=1,
    )


@pytest.fixture
def package(store_home: Path, tmp_path: Path) -> tuple[Path, CardState]:
    """Set 15 exported with its schedule from a store where one card has been reviewed."""
    now = datetime.now(UTC)
    state = reviewed_state(now)
    store = open_store(store_home)
    try:
        record = ReviewRecord("15", REVIEWED, 3, "softmax(Q K^T / sqrt(d_k)) V", True, 900, now)
        store.record(record, lambda before: state)
    finally:
        store.close()
    path = tmp_path / "scheduled.apkg"
    assert main(["export", "15", "--anki", str(path), "--with-schedule"]) == 0
    return path, state


def test_the_reviewed_card_keeps_its_due_date_interval_and_memory(package, collection) -> None:
    import_package(collection, package[0], with_scheduling=True)
    notes = notes_by_item(collection)
    card = collection.get_card(notes[REVIEWED].card_ids()[0])
    assert card.type == card.queue == 2  # a review card
    # Anki's days start at its rollover hour, ours at midnight UTC: the same day give or take one.
    assert abs((card.due - collection.sched.today) - DUE_IN_DAYS) <= 1
    assert card.ivl == DUE_IN_DAYS + 3
    assert (card.reps, card.lapses) == (5, 1)
    assert card.memory_state.stability == pytest.approx(12.5)
    assert card.memory_state.difficulty == pytest.approx(5.2)
    assert len(collection.find_cards("is:new")) == len(notes) - 1


def test_without_scheduling_the_card_is_new_but_its_note_tells_the_state(
    package, collection
) -> None:
    path, state = package
    import_package(collection, path, with_scheduling=False)
    note = notes_by_item(collection)[REVIEWED]
    card = collection.get_card(note.card_ids()[0])
    assert card.type == 0  # new: Anki dropped the state, as asked
    assert state.due is not None
    assert f"due {state.due:%Y-%m-%d}" in plain(note["Schedule"])
    assert "stability 12.5 d" in plain(note["Schedule"])


def test_a_card_never_reviewed_has_no_state() -> None:
    assert review_for(CardState(), datetime.now(UTC)) is None


def test_a_learning_card_due_in_minutes_becomes_a_one_day_review() -> None:
    now = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    learning = CardState(
        phase=Phase.LEARNING, step=1, due=now + timedelta(minutes=10), last_review=now, reps=1
    )
    review = review_for(learning, now)
    assert review is not None
    assert review.interval_days == 1 and review.due == learning.due
