"""Which drills to run: those whose card is due, then the ones never done."""

from __future__ import annotations

from datetime import datetime

from engine.drills.model import Drill
from engine.schedule import CardState, is_due


def due_drills(
    drills: tuple[Drill, ...], cards: dict[str, CardState], now: datetime
) -> list[Drill]:
    """Due drills (earliest first), then new ones in file order. `cards` is keyed by card id."""
    due: list[tuple[datetime, int, Drill]] = []
    new: list[Drill] = []
    for order, drill in enumerate(drills):
        card = cards.get(drill.card_id)
        if card is None or card.due is None:
            new.append(drill)
            continue
        if is_due(card, now):
            due.append((card.due, order, drill))
    return [drill for _, _, drill in sorted(due, key=lambda d: (d[0], d[1]))] + new
