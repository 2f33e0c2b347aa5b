"""Statistics of one set: counts, measured retention, forecast, per-tag strength, leeches.

Read-only queries. Anything that grows with the review log is aggregated in SQL; what is done in
Python loops only over the set's cards, which the bank bounds (one card per item).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from statistics import mean

from engine.bank.model import QuestionSet
from engine.drills import CARD_PREFIX
from engine.schedule import (
    LEARN_AHEAD,
    LEECH_FAILS,
    CardState,
    Phase,
    Scheduling,
    local_day_start,
    local_midnight,
    local_time,
)
from engine.store import Store
from engine.store.reviews import from_ms, to_ms

FORECAST_DAYS = 7  # of `due_per_day`, the older forecast that starts tomorrow (kept for scripts)
FORECAST_HORIZON = 14  # days after today in `forecast`, whose first day (today) holds the overdue
RETENTION_WEEKS = 12
# With a shorter history than this, retention is measured per day instead of per week.
DAILY_HISTORY_DAYS = 28


@dataclass(frozen=True)
class DueDay:
    date: str  # local date, ISO 8601
    due: int


@dataclass(frozen=True)
class RetentionPeriod:
    """Graduated, scheduled reviews in one day or week: how many, how many recalled."""

    period_start: str  # local date, ISO 8601
    reviews: int
    correct: int  # recalled: rated Hard or better
    retention: float | None  # None when there were no reviews


@dataclass(frozen=True)
class TagStrength:
    """How well the cards of one tag are held now."""

    tag: str
    cards: int  # items of the bank with this tag
    introduced: int  # of those, reviewed at least once
    retrievability: float | None  # mean predicted recall now, over the introduced cards
    stability_days: float | None  # mean FSRS stability of the introduced cards
    lapses: int  # times a graduated card was forgotten (rated Again), all cards of the tag
    leeches: int


@dataclass(frozen=True)
class DrillCard:
    """A derivation drill of the set, as `list` and `stats` show it."""

    id: str  # the drill's id (its card is `drill-<id>`)
    title: str
    phase: str  # new, learning, review, relearning
    due: str | None  # ISO 8601; None for a drill never done


@dataclass(frozen=True)
class ReviewCounts:
    """The review log of the set, by kind: scheduled quiz reviews, cram, finished drills."""

    scheduled: int
    cram: int
    drill: int


@dataclass
class SetStats:
    set: str
    title: str
    cards: int
    new: int
    learning: int
    review: int
    due_now: int
    reviews: int
    reviews_today: int
    retention: float | None
    retention_reviews: int
    desired_retention: float
    due_per_day: list[dict[str, object]] = field(default_factory=list)
    leeches: list[dict[str, object]] = field(default_factory=list)
    next_due: str | None = None
    retired: int = 0
    forecast: list[DueDay] = field(default_factory=list)
    retention_period: str = "week"  # "day" or "week": the length of each retention_history entry
    retention_history: list[RetentionPeriod] = field(default_factory=list)
    tags: list[TagStrength] = field(default_factory=list)
    reviews_by_kind: ReviewCounts = field(default_factory=lambda: ReviewCounts(0, 0, 0))
    suspended: list[str] = field(default_factory=list)
    drills: list[DrillCard] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def set_stats(
    store: Store,
    qset: QuestionSet,
    now: datetime,
    desired_retention: float,
    scheduling: Scheduling | None = None,
    drills: Iterable[tuple[str, str]] = (),
) -> SetStats:
    """Everything `attnquiz stats` shows. `scheduling` predicts recall (the learner's FSRS
    parameters when they have their own; the defaults otherwise); `drills` are the set's
    derivation drills as (id, title)."""
    db = store.db
    name = qset.name
    ids = json.dumps(qset.ids)
    in_bank = "set_name = ? AND item_id IN (SELECT value FROM json_each(?))"
    phases = dict(
        db.execute(f"SELECT phase, count(*) FROM cards WHERE {in_bank} GROUP BY phase", (name, ids))
    )
    seen = sum(phases.values())
    day0 = local_day_start(now)
    # "Due now" is what a session started now would show: review cards due by the end of the
    # day, (re)learning cards due within the learn-ahead window.
    due_now = db.execute(
        f"SELECT count(*) FROM cards WHERE {in_bank} AND suspended = 0 AND "
        "((phase = ? AND due < ?) OR (phase != ? AND due <= ?))",
        (
            name,
            ids,
            int(Phase.REVIEW),
            to_ms(day0 + timedelta(days=1)),
            int(Phase.REVIEW),
            to_ms(now + LEARN_AHEAD),
        ),
    ).fetchone()[0]
    due_per_day = []
    for day in range(1, FORECAST_DAYS + 1):
        start, end = day0 + timedelta(days=day), day0 + timedelta(days=day + 1)
        count = db.execute(
            f"SELECT count(*) FROM cards WHERE {in_bank} AND suspended = 0 "
            "AND due >= ? AND due < ?",
            (name, ids, to_ms(start), to_ms(end)),
        ).fetchone()[0]
        due_per_day.append({"date": start.date().isoformat(), "due": count})
    reviews = db.execute("SELECT count(*) FROM reviews WHERE set_name = ?", (name,)).fetchone()[0]
    drill_like = f"{CARD_PREFIX}%"
    scheduled, crammed, drilled = db.execute(
        "SELECT coalesce(sum(cram = 0 AND item_id NOT LIKE ?), 0), coalesce(sum(cram = 1), 0), "
        "coalesce(sum(cram = 0 AND item_id LIKE ?), 0) FROM reviews WHERE set_name = ?",
        (drill_like, drill_like, name),
    ).fetchone()
    today = db.execute(
        "SELECT count(*) FROM reviews WHERE set_name = ? AND reviewed_at >= ?",
        (name, to_ms(day0)),
    ).fetchone()[0]
    # Measured retention: of scheduled reviews of cards that had graduated, the share recalled.
    total, recalled = db.execute(
        "SELECT count(*), coalesce(sum(rating > 1), 0) FROM reviews "
        "WHERE set_name = ? AND cram = 0 AND phase_before = ?",
        (name, int(Phase.REVIEW)),
    ).fetchone()
    leeches = [
        {"id": item_id, "fails": fails, "suspended": bool(suspended)}
        for item_id, fails, suspended in db.execute(
            f"SELECT item_id, fails, suspended FROM cards WHERE {in_bank} AND fails >= ? "
            "ORDER BY fails DESC, item_id",
            (name, ids, LEECH_FAILS),
        )
    ]
    suspended = [
        row[0]
        for row in db.execute(
            f"SELECT item_id FROM cards WHERE {in_bank} AND suspended = 1 ORDER BY item_id",
            (name, ids),
        )
    ]
    next_due = db.execute(
        f"SELECT min(due) FROM cards WHERE {in_bank} AND suspended = 0", (name, ids)
    ).fetchone()[0]
    # Cards of the set that are neither in the bank nor drills: items removed from the bank.
    all_cards = db.execute(
        "SELECT count(*) FROM cards WHERE set_name = ? AND item_id NOT LIKE ?",
        (name, f"{CARD_PREFIX}%"),
    ).fetchone()[0]
    nd = from_ms(next_due)
    cards = store.cards(name, qset.ids)
    period, history = retention_history(store, name, now)
    return SetStats(
        set=name,
        title=qset.title,
        cards=len(qset.items),
        new=len(qset.items) - seen,
        learning=phases.get(int(Phase.LEARNING), 0) + phases.get(int(Phase.RELEARNING), 0),
        review=phases.get(int(Phase.REVIEW), 0),
        due_now=due_now,
        reviews=reviews,
        reviews_today=today,
        retention=(recalled / total) if total else None,
        retention_reviews=total,
        desired_retention=desired_retention,
        due_per_day=due_per_day,
        leeches=leeches,
        next_due=nd.isoformat() if nd else None,
        retired=all_cards - seen,
        forecast=due_forecast((c for c in cards.values() if not c.suspended), now),
        retention_period=period,
        retention_history=history,
        tags=tag_strength(qset, cards, now, scheduling or Scheduling(desired_retention)),
        reviews_by_kind=ReviewCounts(int(scheduled), int(crammed), int(drilled)),
        suspended=suspended,
        drills=drill_cards(store, name, drills),
    )


def drill_cards(store: Store, set_name: str, drills: Iterable[tuple[str, str]]) -> list[DrillCard]:
    """The set's drills with their phase and due time, in the order given."""
    listed = list(drills)
    cards = store.cards(set_name, [CARD_PREFIX + drill_id for drill_id, _ in listed])
    rows = []
    for drill_id, title in listed:
        card = cards.get(CARD_PREFIX + drill_id)
        phase = Phase.NEW if card is None else card.phase
        due = None if card is None or card.due is None else card.due.isoformat()
        rows.append(DrillCard(drill_id, title, phase.name.lower(), due))
    return rows


def due_forecast(cards: Iterable[CardState], now: datetime) -> list[DueDay]:
    """Cards due on each of today and the next FORECAST_HORIZON days; overdue ones count today."""
    first = local_time(now).date()
    days = [first + timedelta(days=k) for k in range(FORECAST_HORIZON + 1)]
    ends = [local_midnight(d + timedelta(days=1)) for d in days]
    counts = [0] * len(days)
    for card in cards:
        if card.due is None or card.due >= ends[-1]:
            continue
        counts[bisect_right(ends, card.due)] += 1
    return [DueDay(d.isoformat(), n) for d, n in zip(days, counts, strict=True)]


def retention_history(
    store: Store, set_name: str, now: datetime
) -> tuple[str, list[RetentionPeriod]]:
    """Measured retention per day (a short history) or per week (the last RETENTION_WEEKS)."""
    today = local_time(now).date()
    first_ms = store.db.execute(
        "SELECT min(reviewed_at) FROM reviews WHERE set_name = ?", (set_name,)
    ).fetchone()[0]
    first = from_ms(first_ms)
    if first is None:
        return "day", []
    first_day = min(local_time(first).date(), today)
    if (today - first_day).days < DAILY_HISTORY_DAYS:
        period = "day"
        starts = [first_day + timedelta(days=k) for k in range((today - first_day).days + 1)]
        step = timedelta(days=1)
    else:
        period = "week"
        monday = today - timedelta(days=today.weekday())
        step = timedelta(weeks=1)
        # The last RETENTION_WEEKS weeks, but none that ended before the first review.
        starts = [monday - k * step for k in reversed(range(RETENTION_WEEKS))]
        starts = [s for s in starts if s + step > first_day]
    bounds = [[to_ms(local_midnight(s)), to_ms(local_midnight(s + step))] for s in starts]
    # One query: each period joins its own range of the (set_name, reviewed_at) index.
    rows = store.db.execute(
        "SELECT p.key, count(*), sum(r.rating > 1) FROM json_each(?) AS p "
        "JOIN reviews AS r ON r.set_name = ? "
        "AND r.reviewed_at >= json_extract(p.value, '$[0]') "
        "AND r.reviewed_at < json_extract(p.value, '$[1]') "
        "WHERE r.cram = 0 AND r.phase_before = ? GROUP BY p.key",
        (json.dumps(bounds), set_name, int(Phase.REVIEW)),
    )
    counts = {int(key): (int(n), int(ok)) for key, n, ok in rows}
    history = []
    for k, start in enumerate(starts):
        n, ok = counts.get(k, (0, 0))
        history.append(RetentionPeriod(start.isoformat(), n, ok, ok / n if n else None))
    return period, history


def tag_strength(
    qset: QuestionSet, cards: dict[str, CardState], now: datetime, scheduling: Scheduling
) -> list[TagStrength]:
    """One row per tag of the bank, weakest (lowest mean recall now) first; tags with no card
    introduced yet come last."""
    recall = {i: scheduling.retrievability(c, now) for i, c in cards.items()}
    by_tag: dict[str, list[str]] = {}
    for item in qset.items:
        for tag in item.tags:
            by_tag.setdefault(tag, []).append(item.id)
    rows = []
    for tag, item_ids in by_tag.items():
        seen = [i for i in item_ids if i in cards]
        stabilities = [s for i in seen if (s := cards[i].stability) is not None]
        rows.append(
            TagStrength(
                tag=tag,
                cards=len(item_ids),
                introduced=len(seen),
                retrievability=round(mean(recall[i] for i in seen), 4) if seen else None,
                stability_days=round(mean(stabilities), 2) if stabilities else None,
                lapses=sum(cards[i].lapses for i in seen),
                leeches=sum(cards[i].is_leech for i in seen),
            )
        )
    rows.sort(key=lambda r: (r.retrievability is None, r.retrievability or 0.0, r.tag))
    return rows
