"""Statistics of one set: counts, measured retention, forecast, leeches. Read-only queries."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from engine.bank.model import QuestionSet
from engine.drills import CARD_PREFIX
from engine.schedule import LEECH_FAILS, Phase
from engine.session import LEARN_AHEAD, local_day_start
from engine.store import Store
from engine.store.reviews import from_ms, to_ms

FORECAST_DAYS = 7


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

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def set_stats(store: Store, qset: QuestionSet, now: datetime, desired_retention: float) -> SetStats:
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
        f"SELECT count(*) FROM cards WHERE {in_bank} AND "
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
    forecast = []
    for day in range(1, FORECAST_DAYS + 1):
        start, end = day0 + timedelta(days=day), day0 + timedelta(days=day + 1)
        count = db.execute(
            f"SELECT count(*) FROM cards WHERE {in_bank} AND due >= ? AND due < ?",
            (name, ids, to_ms(start), to_ms(end)),
        ).fetchone()[0]
        forecast.append({"date": start.date().isoformat(), "due": count})
    reviews = db.execute("SELECT count(*) FROM reviews WHERE set_name = ?", (name,)).fetchone()[0]
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
        {"id": item_id, "fails": fails}
        for item_id, fails in db.execute(
            f"SELECT item_id, fails FROM cards WHERE {in_bank} AND fails >= ? "
            "ORDER BY fails DESC, item_id",
            (name, ids, LEECH_FAILS),
        )
    ]
    next_due = db.execute(f"SELECT min(due) FROM cards WHERE {in_bank}", (name, ids)).fetchone()[0]
    # Cards of the set that are neither in the bank nor drills: items removed from the bank.
    all_cards = db.execute(
        "SELECT count(*) FROM cards WHERE set_name = ? AND item_id NOT LIKE ?",
        (name, f"{CARD_PREFIX}%"),
    ).fetchone()[0]
    nd = from_ms(next_due)
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
        due_per_day=forecast,
        leeches=leeches,
        next_due=nd.isoformat() if nd else None,
        retired=all_cards - seen,
    )
