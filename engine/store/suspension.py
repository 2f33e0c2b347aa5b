"""Suspended cards: leeches taken out of the daily queue until the learner brings them back.

A card is suspended in the same transaction as the review that made it a leech (when the
`leeches` setting is "suspend", the default); `attnquiz unsuspend SET [ITEM...]` brings cards back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from engine.store.reviews import Store


def suspended_items(store: Store, set_name: str) -> list[str]:
    """The ids of the set's suspended cards, in id order."""
    rows = store.db.execute(
        "SELECT item_id FROM cards WHERE set_name = ? AND suspended = 1 ORDER BY item_id",
        (set_name,),
    )
    return [row[0] for row in rows]


def unsuspend(store: Store, set_name: str, item_ids: Iterable[str] | None = None) -> list[str]:
    """Bring suspended cards back (all of the set's when `item_ids` is None); their ids.

    Their count of misses starts again from zero, so that a card brought back is not suspended
    again at its next miss; its lapses, its schedule and its history stay as they were.
    """
    wanted = None if item_ids is None else json.dumps(list(item_ids))
    with store.db:
        store.db.execute("BEGIN IMMEDIATE")
        rows = store.db.execute(
            "SELECT id, item_id FROM cards WHERE set_name = ? AND suspended = 1 AND "
            "(? IS NULL OR item_id IN (SELECT value FROM json_each(?))) ORDER BY item_id",
            (set_name, wanted, wanted),
        ).fetchall()
        store.db.executemany(
            "UPDATE cards SET suspended = 0, fails = 0 WHERE id = ?", [(r[0],) for r in rows]
        )
    return [r[1] for r in rows]
