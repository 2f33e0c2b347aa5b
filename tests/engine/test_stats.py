"""`stats`: counts, due now, the week's forecast, measured retention and leeches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.bank.catalog import open_set
from engine.schedule import Grade, Scheduling
from engine.stats import FORECAST_DAYS, set_stats
from engine.store import ReviewRecord, open_store

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def rate(store, item: str, grade: Grade, at: datetime, cram: bool = False) -> None:
    s = Scheduling(fuzz=False)
    store.record(
        ReviewRecord("demo", item, int(grade), None, None, None, at, cram=cram),
        None if cram else (lambda c: s.review(c, grade, at)),
    )


def test_an_untouched_set_is_all_new(store_home: Path) -> None:
    stats = set_stats(open_store(store_home), open_set("demo", store_home), NOW, 0.9)
    assert (stats.cards, stats.new, stats.due_now, stats.reviews) == (7, 7, 0, 0)
    assert stats.retention is None
    assert len(stats.due_per_day) == FORECAST_DAYS
    assert all(day["due"] == 0 for day in stats.due_per_day)


def test_counts_forecast_and_measured_retention(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    t = NOW - timedelta(days=40)
    rate(store, "recall-one", Grade.EASY, t)  # review phase, due in ~8 days
    rate(store, "choice-axis", Grade.EASY, t)
    # Graduated reviews: recalled once, forgotten once -> measured retention 50%.
    rate(store, "recall-one", Grade.GOOD, t + timedelta(days=9))
    rate(store, "choice-axis", Grade.AGAIN, t + timedelta(days=9))
    rate(store, "number-std", Grade.GOOD, NOW - timedelta(minutes=1))  # learning, due in 10 min
    rate(store, "number-std", Grade.GOOD, NOW, cram=True)  # cram is not counted in retention
    stats = set_stats(store, qset, NOW, 0.9)
    assert (stats.new, stats.learning, stats.review) == (4, 2, 1)  # relearning counts as learning
    assert stats.reviews == 6
    assert stats.retention == 0.5 and stats.retention_reviews == 2
    # choice-axis, relearning since 31 days, is overdue; number-std is within the learn-ahead.
    assert stats.due_now == 2


def test_the_forecast_puts_each_card_on_its_local_due_date(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    rate(store, "shape-out", Grade.EASY, NOW - timedelta(days=3))  # first interval ~8 days
    due = store.card("demo", "shape-out").due
    assert due is not None
    stats = set_stats(store, qset, NOW, 0.9)
    expected = due.astimezone().date().isoformat()
    assert [d["date"] for d in stats.due_per_day if d["due"]] == [expected]
    assert stats.next_due == due.isoformat()


def test_a_card_missed_four_times_is_a_leech(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    for n in range(4):
        rate(store, "expr-var", Grade.AGAIN, NOW + timedelta(minutes=n))
    stats = set_stats(store, qset, NOW + timedelta(hours=1), 0.9)
    assert stats.leeches == [{"id": "expr-var", "fails": 4}]
