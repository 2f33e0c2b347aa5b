"""Carrying attnquiz's review state over to Anki (`export --with-schedule`).

genanki (0.13) writes every card as new: its `Card` has no due date, interval or review count.
So after genanki has filled the package's collection, the cards of reviewed items are set to
Anki review cards here, in the `cards` table of that collection (Anki's documented schema):
type and queue 2 (review), `due` as a day number counted from the collection's creation (`crt`),
`ivl` in days, `reps`, `lapses`, and FSRS's stability and difficulty in `data` (`s`, `d`).

What Anki does with it, by its importer's design:
- it keeps the state only when the import is asked to ("Import any learning progress", the
  `with_scheduling` option); otherwise the cards arrive as new;
- it shifts the day numbers between the two collections, so the due date is kept (to the day:
  Anki's day starts at its own rollover hour, ours at midnight UTC);
- it never reschedules a card that already exists: importing again updates the notes' text but
  keeps Anki's own schedule.
The state is also written, as text, into each note's `Schedule` field, so that it is visible in
Anki whatever the import options.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from engine.schedule import CardState, Phase

SECONDS_PER_DAY = 86_400
# Anki's default ease; FSRS ignores it, the SM-2 scheduler starts from it.
DEFAULT_EASE = 2500
ANKI_REVIEW = 2  # both the card type and the queue of a review card


@dataclass(frozen=True)
class AnkiReview:
    """The part of a card's state that Anki's cards table can hold."""

    due: datetime
    interval_days: int
    reps: int
    lapses: int
    stability: float | None
    difficulty: float | None


def review_for(state: CardState, now: datetime) -> AnkiReview | None:
    """A reviewed card as an Anki review card; None for a card never reviewed.

    Anki counts review intervals in whole days, so a card still in its first learning steps
    (due in minutes) becomes a review card due on that day with an interval of one day.
    """
    if state.phase == Phase.NEW or state.due is None:
        return None
    since = state.last_review or now
    days = (state.due - since).total_seconds() / SECONDS_PER_DAY
    return AnkiReview(
        due=state.due,
        interval_days=max(1, round(days)),
        reps=state.reps,
        lapses=state.fails,
        stability=state.stability,
        difficulty=state.difficulty,
    )


def schedule_text(state: CardState, now: datetime) -> str:
    """One line for the note's `Schedule` field, e.g. `attnquiz, 2026-11-22: review, due ...`."""
    if state.phase == Phase.NEW or state.due is None:
        return ""
    parts = [f"due {state.due:%Y-%m-%d}"]
    review = review_for(state, now)
    if review is not None:
        parts.append(f"interval {review.interval_days} d")
    if state.stability is not None:
        parts.append(f"stability {state.stability:.1f} d")
    if state.difficulty is not None:
        parts.append(f"difficulty {state.difficulty:.2f}")
    parts.append(f"{state.reps} review{'s' if state.reps != 1 else ''}")
    parts.append(f"{state.fails} lapse{'s' if state.fails != 1 else ''}")
    return f"attnquiz schedule on {now:%Y-%m-%d}: {state.phase.word}, " + ", ".join(parts)


def stamp_reviews(db: sqlite3.Connection, reviews: dict[str, AnkiReview]) -> int:
    """Make the cards of the notes with these GUIDs review cards; returns how many changed."""
    (created,) = db.execute("SELECT crt FROM col").fetchone()
    changed = 0
    for guid, review in reviews.items():
        due_day = int((review.due.timestamp() - created) // SECONDS_PER_DAY)
        memory = {}
        if review.stability is not None and review.difficulty is not None:
            memory = {"s": round(review.stability, 4), "d": round(review.difficulty, 4)}
        cursor = db.execute(
            "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
            "lapses = ?, left = 0, data = ? WHERE nid IN (SELECT id FROM notes WHERE guid = ?)",
            (
                ANKI_REVIEW,
                ANKI_REVIEW,
                due_day,
                review.interval_days,
                DEFAULT_EASE,
                review.reps,
                review.lapses,
                json.dumps(memory) if memory else "",
                guid,
            ),
        )
        changed += cursor.rowcount
    return changed
