"""Cards and the review log: every answer is one transaction, committed before the next question."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine.interrupts import ctrl_c_held
from engine.schedule import CardState, Phase

CARD_COLUMNS = (
    "phase, step, stability, difficulty, due, last_review, reps, fails, lapses, suspended"
)
CARD_UPDATE = ", ".join(f"{column.strip()} = ?" for column in CARD_COLUMNS.split(","))


def to_ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def from_ms(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


def read_stored_json(text: str | bytes) -> object:
    """A JSON value the store holds; ValueError when it is not JSON or nests too deeply to read
    (the reader recurses once per level, and a hostile store may nest 100,000 levels)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(exc.msg) from exc
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _state(row: tuple) -> CardState:  # type: ignore[type-arg]
    phase, step, stability, difficulty, due, last_review, reps, fails, lapses, suspended = row
    return CardState(
        phase=Phase(phase),
        step=step,
        stability=stability,
        difficulty=difficulty,
        due=from_ms(due),
        last_review=from_ms(last_review),
        reps=reps,
        fails=fails,
        lapses=lapses,
        suspended=bool(suspended),
    )


def _row(card: CardState) -> tuple:  # type: ignore[type-arg]
    assert card.due is not None, "a reviewed card always has a due time"
    return (
        int(card.phase),
        card.step,
        card.stability,
        card.difficulty,
        to_ms(card.due),
        to_ms(card.last_review) if card.last_review else None,
        card.reps,
        card.fails,
        card.lapses,
        int(card.suspended),
    )


@dataclass(frozen=True)
class ReviewRecord:
    """What the learner did on one question, as logged."""

    set_name: str
    item_id: str
    grade: int
    answer: str | None
    correct: bool | None
    duration_ms: int | None
    reviewed_at: datetime
    session_id: int | None = None
    cram: bool = False
    confidence: bool | None = None  # sure / unsure, when the learner was asked


@dataclass(frozen=True)
class Recorded:
    review_id: int
    before: CardState
    after: CardState


class Store:
    """Access to one open store. All writes are short IMMEDIATE transactions."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path

    def close(self) -> None:
        self.db.close()

    # -- reading ---------------------------------------------------------------------------
    def cards(self, set_name: str, item_ids: Iterable[str]) -> dict[str, CardState]:
        """Stored state of the given items (items never reviewed are absent)."""
        rows = self.db.execute(
            f"SELECT item_id, {CARD_COLUMNS} FROM cards WHERE set_name = ? "
            "AND item_id IN (SELECT value FROM json_each(?))",
            (set_name, json.dumps(list(item_ids))),
        )
        return {row[0]: _state(row[1:]) for row in rows}

    def card(self, set_name: str, item_id: str) -> CardState:
        row = self.db.execute(
            f"SELECT {CARD_COLUMNS} FROM cards WHERE set_name = ? AND item_id = ?",
            (set_name, item_id),
        ).fetchone()
        return CardState() if row is None else _state(row)

    def introduced_since(self, set_name: str, since: datetime, item_ids: Iterable[str]) -> int:
        """How many of these items of the set had their first review at or after `since`.

        Only the given items count, so that drills (cards of the same set) do not use up the
        quiz's daily allowance of new cards.
        """
        return int(
            self.db.execute(
                "SELECT count(*) FROM cards WHERE set_name = ? AND introduced >= ? "
                "AND item_id IN (SELECT value FROM json_each(?))",
                (set_name, to_ms(since), json.dumps(list(item_ids))),
            ).fetchone()[0]
        )

    # -- writing ---------------------------------------------------------------------------
    def start_session(self, set_name: str, mode: str, now: datetime) -> int:
        cur = self.db.execute(
            "INSERT INTO sessions (set_name, mode, started) VALUES (?, ?, ?)",
            (set_name, mode, to_ms(now)),
        )
        return int(cur.lastrowid or 0)

    def end_session(self, session_id: int, now: datetime) -> None:
        self.db.execute("UPDATE sessions SET ended = ? WHERE id = ?", (to_ms(now), session_id))

    def record(
        self, review: ReviewRecord, schedule: Callable[[CardState], CardState] | None
    ) -> Recorded:
        """Log one review and reschedule its card, atomically.

        The card is read inside the transaction, so a second session reviewing the same card
        meanwhile is built upon, never overwritten. `schedule=None` (cram) logs the review but
        leaves the schedule as it was.
        """
        db = self.db
        with ctrl_c_held(), db:  # Ctrl-C acts after the commit, never rolls it back
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                f"SELECT id, {CARD_COLUMNS} FROM cards WHERE set_name = ? AND item_id = ?",
                (review.set_name, review.item_id),
            ).fetchone()
            before = CardState() if row is None else _state(row[1:])
            after = before if schedule is None else schedule(before)
            if row is None and schedule is None:
                card_id = None
            elif row is None:
                card_id = db.execute(
                    f"INSERT INTO cards (set_name, item_id, {CARD_COLUMNS}, introduced) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (review.set_name, review.item_id, *_row(after), to_ms(review.reviewed_at)),
                ).lastrowid
            else:
                card_id = row[0]
                if schedule is not None:
                    db.execute(
                        f"UPDATE cards SET {CARD_UPDATE} WHERE id = ?", (*_row(after), card_id)
                    )
            review_id = db.execute(
                "INSERT INTO reviews (card_id, session_id, set_name, item_id, reviewed_at, "
                "rating, answer, correct, duration_ms, phase_before, cram, card_before, "
                "confidence) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    card_id,
                    review.session_id,
                    review.set_name,
                    review.item_id,
                    to_ms(review.reviewed_at),
                    review.grade,
                    review.answer,
                    None if review.correct is None else int(review.correct),
                    review.duration_ms,
                    int(before.phase),
                    int(review.cram),
                    None if row is None else json.dumps(list(row[1:])),
                    None if review.confidence is None else int(review.confidence),
                ),
            ).lastrowid
        return Recorded(int(review_id or 0), before, after)

    def undo(self, review_id: int) -> str | None:
        """Take back one review: restore its card as it was before. Returns the item id.

        Returns None when there is nothing to undo, or when the card was reviewed again since
        (in another session): restoring it then would erase that later review.
        """
        db = self.db
        with ctrl_c_held(), db:  # Ctrl-C acts after the commit, never rolls it back
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT card_id, item_id, cram, card_before FROM reviews WHERE id = ?",
                (review_id,),
            ).fetchone()
            if row is None:
                return None
            card_id, item_id, cram, card_before = row
            later = db.execute(
                "SELECT 1 FROM reviews WHERE card_id = ? AND id > ? AND cram = 0",
                (card_id, review_id),
            ).fetchone()
            if later and not cram:
                return None
            db.execute("DELETE FROM reviews WHERE id = ?", (review_id,))
            if cram or card_id is None:
                pass
            elif card_before is None:
                db.execute("UPDATE reviews SET card_id = NULL WHERE card_id = ?", (card_id,))
                db.execute("DELETE FROM cards WHERE id = ?", (card_id,))
            else:
                values = json.loads(card_before)
                # A review logged before migration 0004 kept 8 columns: no lapses, not suspended.
                values += [0, 0][: max(0, 10 - len(values))]
                db.execute(f"UPDATE cards SET {CARD_UPDATE} WHERE id = ?", (*values, card_id))
        return str(item_id)
