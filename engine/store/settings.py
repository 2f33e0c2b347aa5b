"""The learner's settings, kept in the store so that every command uses the same ones.

A setting is chosen once (`attnquiz settings --retention 0.85`, or an option of `quiz` such as
`--new 5`) and holds from then on: sessions schedule with it, `stats` reports it. The table
`settings` comes from migration 0004; values are JSON, checked when read back, and a value that
cannot be read falls back to the default with a StoreError naming the way out.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Literal

from engine.errors import StoreError
from engine.schedule import DEFAULT_RETENTION
from engine.store.reviews import Store, read_stored_json, to_ms

DEFAULT_NEW_PER_DAY = 10
LeechAction = Literal["suspend", "flag"]


@dataclass(frozen=True)
class Settings:
    """What the learner chose, or the defaults."""

    retention: float = DEFAULT_RETENTION  # desired retention for FSRS
    new_per_day: int = DEFAULT_NEW_PER_DAY  # new cards per day and set
    confidence: bool = False  # ask "sure or unsure?" after each typed answer
    leeches: LeechAction = "suspend"  # what happens to a card missed LEECH_FAILS times

    def to_json(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _retention(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("not a number")
    if not 0.7 <= value <= 0.99:
        raise ValueError("not between 0.70 and 0.99")
    return float(value)


def _new_per_day(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9999:
        raise ValueError("not a whole number from 0 to 9999")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not true or false")
    return value


def _leeches(value: object) -> LeechAction:
    if value == "suspend":
        return "suspend"
    if value == "flag":
        return "flag"
    raise ValueError("not 'suspend' or 'flag'")


CHECKS: dict[str, Callable[[object], object]] = {
    "retention": _retention,
    "new_per_day": _new_per_day,
    "confidence": _flag,
    "leeches": _leeches,
}
# How `attnquiz settings` sets each one again (the options of engine/cli.py's `settings`).
SET_AGAIN = {
    "retention": "--retention VALUE",
    "new_per_day": "--new N",
    "confidence": "--confidence (or --no-confidence)",
    "leeches": "--leeches suspend (or flag)",
}


def load_settings(store: Store) -> Settings:
    """The stored settings over the defaults."""
    chosen: dict[str, object] = {}
    for key, text in store.db.execute("SELECT key, value FROM settings"):
        check = CHECKS.get(key)
        if check is None:
            continue  # a setting of a newer attnquiz: not ours to judge
        try:
            chosen[key] = check(read_stored_json(text))
        except (ValueError, TypeError) as exc:
            raise StoreError(
                f"the setting {key!r} stored in {store.path} cannot be read ({exc}); "
                f"set it again with `attnquiz settings {SET_AGAIN[key]}`"
            ) from exc
    return replace(Settings(), **chosen)  # type: ignore[arg-type]


def save_settings(store: Store, now: datetime, **values: object) -> Settings:
    """Store the given settings (None values are skipped) and return them all."""
    changes = {k: v for k, v in values.items() if v is not None}
    for key, value in changes.items():
        CHECKS[key](value)  # a KeyError or ValueError here is a bug in the caller
    if changes:
        with store.db:
            store.db.execute("BEGIN IMMEDIATE")
            store.db.executemany(
                "INSERT INTO settings (key, value, changed) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "changed = excluded.changed",
                [(k, json.dumps(v), to_ms(now)) for k, v in changes.items()],
            )
    return load_settings(store)
