"""`attnquiz settings` (show or change the learner's settings) and `attnquiz unsuspend SET`."""

from __future__ import annotations

from pathlib import Path

from engine.clock import make_clock
from engine.commands.context import load_with_store
from engine.errors import UsageError
from engine.exit_codes import EXIT_OK
from engine.paths import store_dir
from engine.store import open_store
from engine.store.settings import Settings, load_settings, save_settings
from engine.ui.json_output import print_json

DESCRIPTIONS = {
    "retention": "desired retention (FSRS schedules for this share of recall)",
    "new_per_day": "new cards per day and set",
    "confidence": "ask sure or unsure after each typed answer",
    "leeches": "a card missed 4 times: suspend it, or only flag it",
}


def run_settings(
    retention: float | None,
    new_per_day: int | None,
    confidence: bool | None,
    leeches: str | None,
    as_json: bool,
    data_dir: Path | None,
) -> int:
    if leeches is not None and leeches not in {"suspend", "flag"}:
        raise UsageError(f"--leeches takes 'suspend' or 'flag', not {leeches!r}")
    store = open_store(store_dir(data_dir))
    try:
        settings = save_settings(
            store,
            make_clock()(),
            retention=retention,
            new_per_day=new_per_day,
            confidence=confidence,
            leeches=leeches,
        )
    finally:
        store.close()
    if as_json:
        print_json(settings.to_json())
    else:
        show(settings)
    return EXIT_OK


def show(settings: Settings) -> None:
    from rich.table import Table

    from engine.ui.console import make_console

    table = Table.grid(padding=(0, 2))
    for key, value in settings.to_json().items():
        shown = {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value
        table.add_row(key.replace("_", " "), str(shown), f"[dim]{DESCRIPTIONS[key]}[/]")
    make_console().print(table)


def run_unsuspend(set_name: str, items: list[str] | None, data_dir: Path | None) -> int:
    from engine.store.suspension import suspended_items, unsuspend

    qset, store = load_with_store(set_name, data_dir)
    try:
        if items:
            unknown = [i for i in items if qset.item(i) is None]
            if unknown:
                raise UsageError(f"set {qset.name} has no item {unknown[0]!r}; see `attnquiz list`")
            not_suspended = sorted(set(items) - set(suspended_items(store, qset.name)))
            if not_suspended:
                raise UsageError(f"{not_suspended[0]} is not suspended; nothing changed")
        back = unsuspend(store, qset.name, items)
        settings = load_settings(store)
    finally:
        store.close()
    if not back:
        print(f"no card of set {qset.name} is suspended")
    else:
        print(f"back in the reviews: {', '.join(back)}")
        if settings.leeches == "suspend":
            print("a card is suspended again after 4 more misses")
    return EXIT_OK
