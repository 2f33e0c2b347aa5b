"""`attnquiz list SET`: every item with its id, kind, tags and when it is due."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.table import Table

from engine.clock import make_clock
from engine.commands.context import load_with_store
from engine.commands.stats import set_drills
from engine.drills import CARD_PREFIX
from engine.exit_codes import EXIT_OK
from engine.schedule import CardState
from engine.stats import drill_cards
from engine.ui.console import make_console
from engine.ui.describe import when
from engine.ui.literal import literal


def state(card: CardState | None) -> str:
    if card is None:
        return "new"
    if card.suspended:
        return card.phase.word + " (suspended leech)"
    return card.phase.word + (" (leech)" if card.is_leech else "")


def run_list(set_name: str, data_dir: Path | None) -> int:
    now = make_clock()()
    qset, store = load_with_store(set_name, data_dir)
    try:
        cards = store.cards(qset.name, qset.ids)
        drills = drill_cards(store, qset.name, set_drills(qset.name, store.path.parent))
    finally:
        store.close()
    table = Table(
        title=literal(f"{qset.title} (set {qset.name}, {len(qset.items)} items)"),
        title_justify="left",
    )
    table.add_column("id", no_wrap=True)
    table.add_column("kind")
    table.add_column("tags")
    table.add_column("state")
    table.add_column("due", no_wrap=True)
    for item in qset.items:
        card = cards.get(item.id)
        table.add_row(
            literal(item.id),
            item.kind,
            literal(", ".join(item.tags)),
            state(card),
            "-" if card is None else "suspended" if card.suspended else when(card.due, now),
        )
    for drill in drills:
        due = None if drill.due is None else datetime.fromisoformat(drill.due)
        table.add_row(
            CARD_PREFIX + drill.id, "drill", "", drill.phase, when(due, now) if due else "-"
        )
    make_console().print(table)
    return EXIT_OK
