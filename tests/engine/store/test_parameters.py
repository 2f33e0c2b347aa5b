"""Stored FSRS parameters: the migration, the history of fits, reset, damage, and their use."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.schedule import DEFAULT_PARAMETERS, CardState, Grade, Scheduling
from engine.store import ReviewRecord, open_store
from engine.store import migrations as migrations_module
from engine.store.parameters import (
    FittedParameters,
    parameters_in_use,
    reset_to_defaults,
    save_fitted,
    scheduling_for,
)

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SLOW_FORGETTER = (1.5, 4.0, 9.0, 20.0, *DEFAULT_PARAMETERS[4:])
FIT = FittedParameters(
    SLOW_FORGETTER, reviews_used=700, cards_used=40, loss_before=0.41, loss_after=0.38
)


def review(item: str, at: datetime, cram: bool = False) -> ReviewRecord:
    return ReviewRecord("demo", item, 3, "x", True, 900, at, cram=cram)


def test_a_store_made_before_the_parameters_table_keeps_every_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = [m for m in migrations_module.MIGRATIONS if m[0] < "0003"]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", older)
    store = open_store(tmp_path)
    # Rows as a store of that age holds them (today's code writes the later columns too).
    ms = int(NOW.timestamp() * 1000)
    for n, item in enumerate(["a", "b", "c"]):
        store.db.execute(
            "INSERT INTO cards (set_name, item_id, phase, step, stability, difficulty, due, "
            "last_review, reps, fails, introduced) VALUES ('demo', ?, 2, NULL, 3.2, 5.1, ?, ?, 1, "
            "0, ?)",
            (item, ms + 86400000 * (n + 3), ms, ms),
        )
        store.db.execute(
            "INSERT INTO reviews (card_id, set_name, item_id, reviewed_at, rating, answer, "
            "correct, duration_ms, phase_before, cram) VALUES (?, 'demo', ?, ?, 3, 'x', 1, 900, "
            "0, 0)",
            (n + 1, item, ms),
        )
    store.db.commit()
    columns = "id, card_id, item_id, reviewed_at, rating, answer, correct, cram"
    before = store.db.execute(f"SELECT {columns} FROM reviews ORDER BY id").fetchall()
    card_columns = "id, item_id, phase, stability, difficulty, due, reps, fails"
    cards = store.db.execute(f"SELECT {card_columns} FROM cards ORDER BY id").fetchall()
    store.close()
    monkeypatch.undo()

    upgraded = open_store(tmp_path)
    assert upgraded.db.execute(f"SELECT {columns} FROM reviews ORDER BY id").fetchall() == before
    assert upgraded.db.execute(f"SELECT {card_columns} FROM cards ORDER BY id").fetchall() == cards
    names = {row[0] for row in upgraded.db.execute("SELECT name FROM migrations")}
    assert "0003_fsrs_parameters" in names
    assert parameters_in_use(upgraded).source == "default"
    upgraded.close()


def test_a_store_never_optimized_uses_the_defaults(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    in_use = parameters_in_use(store)
    assert in_use.source == "default"
    assert in_use.parameters == tuple(DEFAULT_PARAMETERS)
    assert in_use.fitted_at is None
    assert in_use.to_json()["source"] == "default"


def test_a_saved_fit_reads_back_and_survives_reopening(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    saved = save_fitted(store, FIT, NOW)
    store.close()
    store = open_store(tmp_path)
    in_use = parameters_in_use(store)
    assert in_use == saved
    assert in_use.source == "fitted"
    assert in_use.parameters == SLOW_FORGETTER
    assert in_use.fitted_at == NOW
    assert (in_use.reviews_used, in_use.cards_used) == (700, 40)
    as_json = in_use.to_json()
    assert as_json["parameters"] == list(SLOW_FORGETTER)
    assert as_json["fitted_at"] == NOW.isoformat()
    assert "700 reviews of 40 cards" in in_use.describe()


def test_reset_records_a_return_to_the_defaults_and_keeps_the_fits(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    save_fitted(store, FIT, NOW)
    in_use = reset_to_defaults(store, NOW + timedelta(days=1))
    assert in_use.source == "default"
    assert in_use.parameters == tuple(DEFAULT_PARAMETERS)
    assert parameters_in_use(store) == in_use
    history = store.db.execute("SELECT source FROM fsrs_parameters ORDER BY id").fetchall()
    assert history == [("fitted",), ("default",)]
    # A later fit is in use again.
    save_fitted(store, FIT, NOW + timedelta(days=2))
    assert parameters_in_use(store).parameters == SLOW_FORGETTER


def test_an_invalid_fit_is_never_stored(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    bad = FittedParameters((float("nan"), *DEFAULT_PARAMETERS[1:]), 600, 30)
    with pytest.raises(ValueError, match="not finite"):
        save_fitted(store, bad, NOW)
    assert store.db.execute("SELECT count(*) FROM fsrs_parameters").fetchone()[0] == 0


@pytest.mark.parametrize(
    "damage",
    [
        "parameters = '[0.2, 1.3'",
        "parameters = '[1, 2, 3]'",
        "parameters = replace(parameters, '[1.5,', '[NaN,')",
        "parameters = replace(parameters, '[1.5,', '[500.0,')",
        "parameters = '{\"w\": 1}'",
        "parameters = NULL",
        "chosen = 'yesterday'",
        # Nested deeper than the JSON reader's recursion: a RecursionError was an internal error.
        "parameters = printf('%.*c%.*c', 100000, '[', 100000, ']')",
    ],
)
def test_a_damaged_row_is_a_store_error_that_names_the_way_out(tmp_path: Path, damage: str) -> None:
    store = open_store(tmp_path)
    save_fitted(store, FIT, NOW)
    reviews = store.db.execute("SELECT count(*) FROM reviews").fetchone()[0]
    store.db.execute(f"UPDATE fsrs_parameters SET {damage}")
    with pytest.raises(StoreError, match=r"damaged.*attnquiz optimize --reset"):
        parameters_in_use(store)
    with pytest.raises(StoreError):
        scheduling_for(store, 0.9)
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == reviews
    reset_to_defaults(store, NOW)
    assert parameters_in_use(store).source == "default"


def test_scheduling_for_a_store_uses_its_fitted_parameters(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    assert scheduling_for(store, 0.9).parameters == tuple(DEFAULT_PARAMETERS)
    save_fitted(store, FIT, NOW)
    scheduling = scheduling_for(store, 0.85, fuzz=False)
    assert scheduling.parameters == SLOW_FORGETTER
    assert scheduling.desired_retention == pytest.approx(0.85)
    card = scheduling.review(CardState(), Grade.GOOD, NOW)
    default_card = Scheduling(0.85, fuzz=False).review(CardState(), Grade.GOOD, NOW)
    assert card.stability == pytest.approx(SLOW_FORGETTER[2])
    assert card.stability != pytest.approx(default_card.stability)
