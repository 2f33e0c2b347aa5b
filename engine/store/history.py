"""The learner's review history across every set, as the FSRS optimizer learns from it.

Cram reviews are left out: they did not follow the schedule, and the learner often saw the card
minutes before. Undone answers need no filter, since undo deletes their row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.store.reviews import Store, from_ms


@dataclass(frozen=True)
class PastReview:
    """One scheduled review: which card (a small integer), the rating, when, how long it took."""

    card: int
    grade: int
    reviewed_at: datetime
    duration_ms: int | None


def review_history(store: Store) -> list[PastReview]:
    """Every non-cram review of every set, oldest first.

    Cards are numbered 1, 2, ... in the order of their first review, so the numbering is the
    same from one run to the next and does not depend on the cards table (an undone first review
    removes a card's row, while its later cram reviews remain).
    """
    rows = store.db.execute(
        "SELECT set_name, item_id, rating, reviewed_at, duration_ms FROM reviews "
        "WHERE cram = 0 ORDER BY reviewed_at, id"
    )
    numbers: dict[tuple[str, str], int] = {}
    history = []
    for set_name, item_id, rating, reviewed_at, duration_ms in rows:
        card = numbers.setdefault((set_name, item_id), len(numbers) + 1)
        at = from_ms(reviewed_at)
        assert at is not None
        duration = duration_ms if isinstance(duration_ms, int) and duration_ms >= 0 else None
        history.append(PastReview(card, int(rating), at, duration))
    return history
