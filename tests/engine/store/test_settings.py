"""Settings kept in the store, and migration 0004 on a store from before it."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.paths import STORE_FILE
from engine.store import migrations as migrations_module
from engine.store import open_store
from engine.store.parameters import scheduling_for
from engine.store.settings import Settings, load_settings, save_settings

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_settings_default_then_persist_across_opening(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    assert load_settings(store) == Settings()
    save_settings(store, NOW, retention=0.8, new_per_day=None, confidence=True)
    store.close()
    store = open_store(tmp_path)
    settings = load_settings(store)
    assert (settings.retention, settings.new_per_day, settings.confidence) == (0.8, 10, True)
    assert scheduling_for(store).desired_retention == 0.8  # every command schedules with it
    store.close()


def test_a_damaged_setting_is_a_store_error_naming_the_way_out(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    save_settings(store, NOW, retention=0.85)
    store.db.execute("UPDATE settings SET value = '\"lots\"' WHERE key = 'retention'")
    with pytest.raises(StoreError, match=r"attnquiz settings --retention VALUE"):
        load_settings(store)
    store.close()


@pytest.mark.parametrize(
    ("key", "value", "how", "fix"),
    [
        ("retention", '"lots"', "--retention VALUE", ["--retention", "0.9"]),
        ("new_per_day", "-4", "--new N", ["--new", "5"]),
        ("confidence", '"maybe"', "--confidence (or --no-confidence)", ["--no-confidence"]),
        ("leeches", "3", "--leeches suspend (or flag)", ["--leeches", "flag"]),
        # Nested deeper than the JSON reader's recursion: a RecursionError was an internal error.
        ("retention", "[" * 100_000 + "]" * 100_000, "--retention VALUE", ["--retention", "0.9"]),
    ],
)
def test_a_damaged_setting_names_the_option_that_sets_it_again(
    key: str, value: str, how: str, fix: list[str], tmp_path: Path, capsys
) -> None:
    from engine.cli import main

    store = open_store(tmp_path)
    store.db.execute("INSERT INTO settings (key, value, changed) VALUES (?, ?, 0)", (key, value))
    store.close()
    assert main(["settings", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"the setting {key!r}" in err and f"set it again with `attnquiz settings {how}`" in err
    # The way out it names works: that option exists and replaces the damaged value.
    assert main(["settings", *fix, "--data-dir", str(tmp_path)]) == 0, capsys.readouterr().err
    assert main(["settings", "--data-dir", str(tmp_path)]) == 0


def test_migration_0004_counts_past_lapses_of_graduated_cards_only(
    tmp_path: Path, monkeypatch
) -> None:
    older = [m for m in migrations_module.MIGRATIONS if m[0] < "0004"]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", older)
    open_store(tmp_path).close()
    monkeypatch.undo()
    db = sqlite3.connect(tmp_path / STORE_FILE)
    db.execute(
        "INSERT INTO cards (id, set_name, item_id, phase, stability, difficulty, due, reps, "
        "fails, introduced) VALUES (1, 'demo', 'a', 2, 3.5, 5.0, 0, 5, 3, 0)"
    )
    # Again while learning (phase 1), Again on a review card (phase 2), a crammed Again.
    for phase, cram in ((1, 0), (2, 0), (2, 1)):
        db.execute(
            "INSERT INTO reviews (card_id, set_name, item_id, reviewed_at, rating, phase_before, "
            "cram) VALUES (1, 'demo', 'a', 0, 1, ?, ?)",
            (phase, cram),
        )
    db.commit()
    db.close()
    store = open_store(tmp_path)
    card = store.card("demo", "a")
    assert (card.fails, card.lapses, card.suspended) == (3, 1, False)
    store.close()
