"""The review history handed to the FSRS optimizer: every set, no cram, stable card numbers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.schedule import Grade, Scheduling
from engine.store import ReviewRecord, open_store
from engine.store.history import review_history

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_history_spans_every_set_skips_cram_and_numbers_cards_by_first_review(
    tmp_path: Path,
) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    answers = [
        ("15", "var-dot", Grade.GOOD, 0, False),
        ("demo", "var-dot", Grade.AGAIN, 1, False),  # same item id, another set: another card
        ("15", "var-dot", Grade.HARD, 2, True),  # cram: not a scheduled review
        ("15", "var-dot", Grade.EASY, 3, False),
        ("15", "mean-dot", Grade.GOOD, 4, False),
    ]
    for set_name, item, grade, day, cram in answers:
        at = NOW + timedelta(days=day)
        record = ReviewRecord(set_name, item, int(grade), None, None, 1500, at, cram=cram)
        store.record(record, None if cram else (lambda c, g=grade, at=at: s.review(c, g, at)))
    history = review_history(store)
    assert [(r.card, r.grade) for r in history] == [(1, 3), (2, 1), (1, 4), (3, 3)]
    assert [r.reviewed_at for r in history] == [NOW + timedelta(days=d) for d in (0, 1, 3, 4)]
    assert {r.duration_ms for r in history} == {1500}


def test_an_undone_answer_is_not_in_the_history(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    first = ReviewRecord("15", "a", 3, None, None, None, NOW)
    store.record(first, lambda c: s.review(c, Grade.GOOD, NOW))
    later = NOW + timedelta(days=2)
    second = ReviewRecord("15", "a", 1, None, None, None, later)
    undone = store.record(second, lambda c: s.review(c, Grade.AGAIN, later))
    assert store.undo(undone.review_id) == "a"
    assert [(r.grade, r.reviewed_at) for r in review_history(store)] == [(3, NOW)]
