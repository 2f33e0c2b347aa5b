"""Carry the review history of retired item ids over to their successors.

A bank that splits or merges cards names, on each successor, the ids it replaces
(engine/bank/lineage.py). Before a session reads the cards of a set, every successor that has
no card yet gets a copy of its retired predecessor's card: its FSRS state, due date, review and
lapse counts and the day it was first introduced (so a split card does not count as new
today). The old id's rows and its review log stay as they were: nothing is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.bank.lineage import inheritance
from engine.store.reviews import CARD_COLUMNS, Store


def carry_over_retired(
    store: Store, set_name: str, successors: Mapping[str, tuple[str, ...]]
) -> dict[str, str]:
    """Give successors without a card their predecessor's card; successor -> retired id copied.

    One transaction; a successor reviewed meanwhile by another process keeps its own card.
    """
    if not successors:
        return {}
    retired = store.cards(set_name, successors)
    if not retired:
        return {}
    new_ids = {new for news in successors.values() for new in news}
    copies = inheritance(retired, successors, store.cards(set_name, new_ids))
    if not copies:
        return {}
    db = store.db
    with db:
        db.execute("BEGIN IMMEDIATE")
        for new, old in copies.items():
            db.execute(
                f"INSERT OR IGNORE INTO cards (set_name, item_id, {CARD_COLUMNS}, introduced) "
                f"SELECT set_name, ?, {CARD_COLUMNS}, introduced FROM cards "
                "WHERE set_name = ? AND item_id = ?",
                (new, set_name, old),
            )
    return copies
