"""`stats`: counts, due now, forecasts, measured retention (overall and over time), strength
per tag, leeches."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.schedule import LEECH_FAILS, CardState, Grade, Phase, Scheduling
from engine.stats import (
    FORECAST_DAYS,
    FORECAST_HORIZON,
    RETENTION_WEEKS,
    RetentionPeriod,
    set_stats,
)
from engine.store import ReviewRecord, open_store

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
WEEK = timedelta(weeks=1)


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
    assert stats.leeches == [{"id": "expr-var", "fails": 4, "suspended": False}]


# -- the pictures' numbers: forecast, retention over time, strength per tag --------------------


def review_at(store, item: str, grade: Grade, at: datetime, cram: bool = False) -> None:
    """Log a review whose card is (and stays) in the review phase, so that from its second
    review on every one is a graduated review; only the rating and time matter."""

    def keep_in_review(card: CardState) -> CardState:
        return CardState(
            phase=Phase.REVIEW,
            stability=10.0,
            difficulty=5.0,
            due=at + timedelta(days=10),
            last_review=at,
            reps=card.reps + 1,
            fails=card.fails + (grade == Grade.AGAIN),
        )

    store.record(
        ReviewRecord("demo", item, int(grade), None, None, None, at, cram=cram),
        None if cram else keep_in_review,
    )


def local_day(t: datetime) -> date:
    return t.astimezone().date()


def test_the_forecast_starts_today_with_the_overdue_and_spans_two_weeks(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=30))  # due 20 days ago
    review_at(store, "shape-out", Grade.GOOD, NOW - timedelta(days=5))  # due in 5 days
    review_at(store, "shape-scores", Grade.GOOD, NOW - timedelta(days=2))  # due in 8 days
    review_at(store, "choice-axis", Grade.GOOD, NOW + timedelta(days=5))  # due in 15: beyond
    stats = set_stats(store, qset, NOW, 0.9)
    assert len(stats.forecast) == FORECAST_HORIZON + 1
    assert stats.forecast[0].date == local_day(NOW).isoformat()
    due = {d.date: d.due for d in stats.forecast if d.due}
    assert due == {
        local_day(NOW).isoformat(): 1,
        local_day(NOW + timedelta(days=5)).isoformat(): 1,
        local_day(NOW + timedelta(days=8)).isoformat(): 1,
    }
    # The older week's forecast keeps its shape for scripts: tomorrow on, seven days.
    assert [d["date"] for d in stats.due_per_day] == [
        local_day(NOW + timedelta(days=k)).isoformat() for k in range(1, FORECAST_DAYS + 1)
    ]


def test_a_short_history_gives_retention_per_day(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    start = NOW - timedelta(days=10)
    for item in ("recall-one", "choice-axis"):
        review_at(store, item, Grade.GOOD, start)  # first reviews: not graduated ones
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=8))
    review_at(store, "choice-axis", Grade.AGAIN, NOW - timedelta(days=8))
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=5))
    review_at(store, "choice-axis", Grade.HARD, NOW - timedelta(days=5))
    review_at(store, "choice-axis", Grade.AGAIN, NOW - timedelta(days=5), cram=True)
    review_at(store, "recall-one", Grade.EASY, NOW)
    stats = set_stats(store, qset, NOW, 0.9)
    assert stats.retention_period == "day"
    days = [p.period_start for p in stats.retention_history]
    assert days[0] == local_day(start).isoformat() and days[-1] == local_day(NOW).isoformat()
    assert len(days) == (local_day(NOW) - local_day(start)).days + 1
    measured = {
        p.period_start: (p.reviews, p.correct, p.retention) for p in stats.retention_history
    }
    assert measured.pop(local_day(NOW - timedelta(days=8)).isoformat()) == (2, 1, 0.5)
    assert measured.pop(local_day(NOW - timedelta(days=5)).isoformat()) == (2, 2, 1.0)
    assert measured.pop(local_day(NOW).isoformat()) == (1, 1, 1.0)
    assert set(measured.values()) == {(0, 0, None)}
    assert sum(p.reviews for p in stats.retention_history) == stats.retention_reviews == 5


def test_a_long_history_gives_retention_per_week_for_the_last_twelve(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=200))
    review_at(store, "recall-one", Grade.AGAIN, NOW - timedelta(days=100))  # before the window
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=20))
    review_at(store, "recall-one", Grade.AGAIN, NOW - timedelta(days=19))
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(hours=1))
    stats = set_stats(store, qset, NOW, 0.9)
    history = stats.retention_history
    assert stats.retention_period == "week" and len(history) == RETENTION_WEEKS
    starts = [date.fromisoformat(p.period_start) for p in history]
    assert all(s.weekday() == 0 for s in starts)  # weeks start on Monday
    assert all(later - earlier == WEEK for earlier, later in pairwise(starts))
    assert starts[-1] <= local_day(NOW) < starts[-1] + WEEK

    def week_of(t: datetime) -> RetentionPeriod:
        day = local_day(t)
        return next(p for p, s in zip(history, starts, strict=True) if s <= day < s + WEEK)

    assert sum(p.reviews for p in history) == 3  # the review 100 days ago is out of the window
    assert stats.retention_reviews == 4
    assert (week_of(NOW).reviews, week_of(NOW).correct) == (1, 1)
    twenty_ago, nineteen_ago = week_of(NOW - timedelta(days=20)), week_of(NOW - timedelta(days=19))
    if twenty_ago is nineteen_ago:  # depends on the local weekday
        assert (twenty_ago.reviews, twenty_ago.correct, twenty_ago.retention) == (2, 1, 0.5)
    else:
        assert (twenty_ago.reviews, twenty_ago.correct) == (1, 1)
        assert (nineteen_ago.reviews, nineteen_ago.correct) == (1, 0)


def test_weekly_retention_starts_at_the_week_of_the_first_review(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    first = NOW - timedelta(days=40)
    review_at(store, "recall-one", Grade.GOOD, first)
    review_at(store, "recall-one", Grade.GOOD, NOW - timedelta(days=10))
    stats = set_stats(store, qset, NOW, 0.9)
    starts = [date.fromisoformat(p.period_start) for p in stats.retention_history]
    assert stats.retention_period == "week" and len(starts) < RETENTION_WEEKS
    # No empty weeks from before the learner began: the first one holds the first review.
    assert starts[0] <= local_day(first) < starts[0] + WEEK
    assert starts[-1] <= local_day(NOW) < starts[-1] + WEEK


def test_strength_per_tag_averages_fsrs_recall_over_introduced_cards(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    rate(store, "recall-one", Grade.EASY, NOW - timedelta(days=40))  # long unreviewed: weak
    rate(store, "shape-out", Grade.EASY, NOW - timedelta(days=3))
    rate(store, "shape-scores", Grade.GOOD, NOW - timedelta(days=1))
    for n in range(LEECH_FAILS):
        rate(store, "expr-var", Grade.AGAIN, NOW - timedelta(days=2, minutes=-n))
    stats = set_stats(store, qset, NOW, 0.9)
    fsrs = Scheduling()
    recall = {i: fsrs.retrievability(store.card("demo", i), NOW) for i in qset.ids}
    by_tag = {t.tag: t for t in stats.tags}
    assert set(by_tag) == {"equation", "softmax", "variance", "shapes"}
    shapes = by_tag["shapes"]
    assert (shapes.cards, shapes.introduced, shapes.lapses, shapes.leeches) == (2, 2, 0, 0)
    # Rounded to 4 decimals in the output.
    mean_recall = (recall["shape-out"] + recall["shape-scores"]) / 2
    assert shapes.retrievability == pytest.approx(mean_recall, abs=1e-4)
    stabilities = [store.card("demo", i).stability for i in ("shape-out", "shape-scores")]
    assert shapes.stability_days == pytest.approx(sum(stabilities) / 2, abs=0.01)  # type: ignore[arg-type]
    variance = by_tag["variance"]
    # Four misses while still learning: a leech, but no lapse (it never graduated).
    assert (variance.cards, variance.introduced, variance.lapses, variance.leeches) == (3, 1, 0, 1)
    assert variance.retrievability == pytest.approx(recall["expr-var"], abs=1e-4)
    assert by_tag["equation"].retrievability == pytest.approx(recall["recall-one"], abs=1e-4)
    # Weakest first; a tag with nothing introduced yet (softmax) comes last, with no figures.
    strength = {"equation": recall["recall-one"], "shapes": mean_recall}
    strength["variance"] = recall["expr-var"]
    assert [t.tag for t in stats.tags] == [*sorted(strength, key=strength.get), "softmax"]
    assert len(set(strength.values())) == 3  # distinct, so the order above means something
    assert by_tag["softmax"].retrievability is None and by_tag["softmax"].stability_days is None


def test_json_keeps_the_old_keys_and_adds_the_pictures_numbers(store_home: Path) -> None:
    store, qset = open_store(store_home), open_set("demo", store_home)
    rate(store, "shape-out", Grade.EASY, NOW - timedelta(days=3))
    data = json.loads(json.dumps(set_stats(store, qset, NOW, 0.9).to_json()))
    old = {"set", "title", "cards", "new", "learning", "review", "due_now", "reviews"}
    old |= {"reviews_today", "retention", "retention_reviews", "desired_retention"}
    old |= {"due_per_day", "leeches", "next_due", "retired"}
    assert old <= set(data)
    assert set(data["due_per_day"][0]) == {"date", "due"}
    assert set(data["forecast"][0]) == {"date", "due"}
    assert data["retention_period"] in {"day", "week"}
    assert set(data["retention_history"][0]) == {"period_start", "reviews", "correct", "retention"}
    shapes = next(t for t in data["tags"] if t["tag"] == "shapes")
    assert shapes["cards"] == 2 and shapes["introduced"] == 1 and shapes["lapses"] == 0
    assert 0 < shapes["retrievability"] <= 1 and shapes["stability_days"] > 0
    assert set(shapes) == {
        "tag", "cards", "introduced", "retrievability", "stability_days", "lapses", "leeches"
    }  # fmt: skip


def test_an_empty_store_has_empty_pictures_not_errors(store_home: Path, capsys) -> None:
    from engine.cli import main

    stats = set_stats(open_store(store_home), open_set("demo", store_home), NOW, 0.9)
    assert stats.retention_history == [] and all(d.due == 0 for d in stats.forecast)
    assert all(t.introduced == 0 and t.retrievability is None for t in stats.tags)
    assert main(["stats", "demo"]) == 0
    out = capsys.readouterr().out
    assert "no reviews yet" in out and "no card is due" in out
    assert "\x1b" not in out and max(len(line) for line in out.splitlines()) <= 80


def test_stats_text_draws_the_charts_within_80_columns(
    store_home: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.cli import main

    store = open_store(store_home)
    items = open_set("demo", store_home).ids[:6]
    for day in range(9, 0, -1):  # six graduated reviews a day (after the first day)
        for item in items:
            review_at(
                store, item, Grade.GOOD if day % 3 else Grade.AGAIN, NOW - timedelta(days=day)
            )
    store.close()
    monkeypatch.setenv("ATTNQUIZ_NOW", NOW.isoformat())
    assert main(["stats", "demo"]) == 0
    out = capsys.readouterr().out
    assert "cards due per day" in out and "recalled per day" in out and "strength per tag" in out
    assert "\x1b" not in out and max(len(line) for line in out.splitlines()) <= 80
