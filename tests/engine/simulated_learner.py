"""A seeded, simulated learner's review log, to fit FSRS to without a real year of reviews.

The learner's memory follows a power forgetting curve whose stability grows with each success
(faster than FSRS's defaults assume) and shrinks after each lapse; they review each card when
about 85% of it is left, give or take. What matters for the tests is only that the log is
realistic enough for the optimizer to move away from the defaults, and that it is reproducible.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from engine.store import Store
from engine.store.history import PastReview

START = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)


def simulated_reviews(seed: int, cards: int, spaced_per_card: int) -> list[PastReview]:
    """Each card: a first review, one same-day learning step, then `spaced_per_card` reviews."""
    rng = random.Random(seed)
    log = []
    for card in range(1, cards + 1):
        at = START + timedelta(days=rng.uniform(0, 20))
        stability = rng.uniform(0.5, 3.0)  # days until recall drops to 90%
        log.append(PastReview(card, rng.choice([1, 3, 3, 3]), at, rng.randint(3000, 9000)))
        at += timedelta(minutes=10)
        log.append(PastReview(card, 3, at, rng.randint(2000, 6000)))
        for _ in range(spaced_per_card):
            gap = max(1.0, stability * rng.uniform(1.0, 2.2))
            at += timedelta(days=gap, minutes=rng.uniform(0, 120))
            recall = (1 + gap / (9 * stability)) ** -1
            if rng.random() < recall:
                grade = 4 if recall > 0.9 else 2 if recall < 0.75 else 3
                stability = min(120.0, stability * {2: 1.4, 3: 2.5, 4: 3.2}[grade])
            else:
                grade = 1
                stability = max(0.3, stability * 0.25)
            log.append(PastReview(card, grade, at, rng.randint(2000, 12000)))
    return log


def write_reviews(store: Store, reviews: list[PastReview], set_name: str = "demo") -> None:
    """Put a log straight into the store's review table, in one transaction."""
    with store.db:
        store.db.execute("BEGIN IMMEDIATE")
        store.db.executemany(
            "INSERT INTO reviews (set_name, item_id, reviewed_at, rating, duration_ms, "
            "phase_before, cram) VALUES (?, ?, ?, ?, ?, 0, 0)",
            [
                (
                    set_name,
                    f"card-{r.card}",
                    int(r.reviewed_at.timestamp() * 1000),
                    r.grade,
                    r.duration_ms,
                )
                for r in reviews
            ],
        )
