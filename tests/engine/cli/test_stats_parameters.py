"""`stats` says which FSRS parameters the learner's sessions use, and predicts recall with them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from engine.schedule import DEFAULT_PARAMETERS
from engine.store import open_store
from engine.store.parameters import FittedParameters, save_fitted

FITTED = (1.5, 4.0, 9.0, 20.0, *DEFAULT_PARAMETERS[4:])


def fit_into(home: Path) -> None:
    store = open_store(home)
    try:
        fit = FittedParameters(FITTED, reviews_used=700, cards_used=40)
        save_fitted(store, fit, datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    finally:
        store.close()


def test_stats_json_names_the_defaults_before_any_fit(run) -> None:
    result = run("stats", "15", "--json")
    assert result.returncode == 0, result.stderr
    in_use = json.loads(result.stdout)["fsrs_parameters"]
    assert in_use["source"] == "default"
    assert in_use["parameters"] == list(DEFAULT_PARAMETERS)


def test_stats_shows_the_fitted_parameters_once_stored(run, store_home: Path) -> None:
    fit_into(store_home)
    as_json = run("stats", "15", "--json")
    assert as_json.returncode == 0, as_json.stderr
    in_use = json.loads(as_json.stdout)["fsrs_parameters"]
    assert in_use["source"] == "fitted"
    assert in_use["parameters"] == list(FITTED)
    assert in_use["reviews_used"] == 700
    shown = run("stats", "15")
    assert "FSRS parameters: fitted to 700 reviews of 40 cards on 2026-03-01" in shown.stdout


def test_a_damaged_parameter_row_is_one_line_and_exit_2(run, store_home: Path) -> None:
    fit_into(store_home)
    store = open_store(store_home)
    try:
        with store.db:
            store.db.execute("UPDATE fsrs_parameters SET parameters = '[1, 2'")
    finally:
        store.close()
    result = run("stats", "15")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "attnquiz optimize --reset" in result.stderr
    assert "Traceback" not in result.stderr
