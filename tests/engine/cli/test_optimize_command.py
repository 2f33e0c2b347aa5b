"""`attnquiz optimize`: exit codes, the missing extra, damage, and quiz using what it stores."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from engine.paths import STORE_FILE
from engine.schedule import DEFAULT_PARAMETERS
from engine.store import open_store
from engine.store.parameters import FittedParameters, save_fitted
from tests.engine.simulated_learner import START, simulated_reviews, write_reviews

SLOW_FORGETTER = (1.5, 4.0, 9.0, 20.0, *DEFAULT_PARAMETERS[4:])
NO_TORCH = "the FSRS optimizer needs torch (pip install 'attnquiz[optimize]'); CI has none"


def rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(home / STORE_FILE)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def with_history(home: Path) -> int:
    """A store holding a simulated learner's year of reviews; returns how many."""
    history = simulated_reviews(seed=3, cards=45, spaced_per_card=13)
    store = open_store(home)
    write_reviews(store, history)
    store.close()
    return len(history)


def with_fit(home: Path, parameters: tuple[float, ...] = SLOW_FORGETTER) -> None:
    store = open_store(home)
    save_fitted(store, FittedParameters(parameters, 700, 40), START)
    store.close()


def test_with_too_little_history_the_defaults_stay_and_nothing_is_stored(run, store_home) -> None:
    run("demo", input="3\n1\n")
    human = run("optimize")
    assert human.returncode == 0, human.stderr
    assert "Not enough history" in human.stdout and "512" in human.stdout
    result = run("optimize", "--json")
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["status"] == "too_little_history" and out["stored"] is False
    assert out["parameters"] == list(DEFAULT_PARAMETERS)
    assert (out["reviews_used"], out["cards_used"], out["spaced_reviews"]) == (2, 2, 0)
    assert rows(store_home, "SELECT count(*) FROM fsrs_parameters") == [(0,)]


def test_without_torch_it_says_what_to_install_and_changes_nothing(
    store_home: Path, monkeypatch: pytest.MonkeyPatch, run
) -> None:
    reviews = with_history(store_home)
    # Hidden for this test whether or not it is installed: importing it fails as if absent.
    monkeypatch.setitem(sys.modules, "torch", None)
    result = run("optimize")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "pip install 'attnquiz[optimize]'" in result.stderr
    assert rows(store_home, "SELECT count(*) FROM reviews") == [(reviews,)]
    assert rows(store_home, "SELECT count(*) FROM fsrs_parameters") == [(0,)]


def first_good_stability(run, home: Path) -> float:
    result = run("demo", input="3\n")  # the self-rated recall card, rated Good
    assert result.returncode == 0, result.stderr
    [(stability,)] = rows(home, "SELECT stability FROM cards WHERE item_id = 'recall-one'")
    assert isinstance(stability, float)
    return stability


def test_quiz_schedules_with_the_default_parameters_before_any_fit(run, store_home) -> None:
    # A new card's stability after its first Good is the parameter w2.
    assert first_good_stability(run, store_home) == pytest.approx(DEFAULT_PARAMETERS[2])


def test_quiz_schedules_with_the_stored_fit(run, store_home) -> None:
    with_fit(store_home)
    assert first_good_stability(run, store_home) == pytest.approx(SLOW_FORGETTER[2])


def test_a_damaged_parameters_row_stops_quiz_and_optimize_until_reset(run, store_home) -> None:
    with_fit(store_home)
    run("demo", input="3\n")
    db = sqlite3.connect(store_home / STORE_FILE)
    db.execute("UPDATE fsrs_parameters SET parameters = '[0.2, oops'")
    db.commit()
    db.close()
    for args in (("demo",), ("optimize",)):
        result = run(*args, input="3\n")
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert "damaged" in result.stderr and "attnquiz optimize --reset" in result.stderr
    assert rows(store_home, "SELECT item_id FROM reviews") == [("recall-one",)]
    reset = run("optimize", "--reset", "--json")
    assert reset.returncode == 0, reset.stderr
    assert json.loads(reset.stdout)["status"] == "reset"
    assert run("demo", input="1\n").returncode == 0
    assert rows(store_home, "SELECT source FROM fsrs_parameters ORDER BY id") == [
        ("fitted",),
        ("default",),
    ]


def test_reset_goes_back_to_the_defaults_once(run, store_home) -> None:
    with_fit(store_home)
    first = run("optimize", "--reset")
    assert first.returncode == 0, first.stderr
    assert "Back to the FSRS defaults" in first.stdout
    assert "w2" in first.stdout  # the old and new vectors side by side
    assert max(len(line) for line in first.stdout.splitlines()) <= 80
    second = json.loads(run("optimize", "--reset", "--json").stdout)
    assert second["status"] == "already_default" and second["stored"] is False
    assert rows(store_home, "SELECT count(*) FROM fsrs_parameters") == [(2,)]


def test_a_fit_is_stored_and_used_from_then_on(run, store_home) -> None:
    pytest.importorskip("torch", reason=NO_TORCH)
    pytest.importorskip("pandas", reason=NO_TORCH)
    reviews = with_history(store_home)
    result = run("optimize", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "fitted" and out["stored"] is True and out["source"] == "fitted"
    assert out["reviews_used"] == reviews and out["cards_used"] == 45
    assert out["previous"] == list(DEFAULT_PARAMETERS)
    assert out["parameters"] != out["previous"] and len(out["parameters"]) == 21
    assert out["log_loss_after"] < out["log_loss_before"]
    [(stored,)] = rows(store_home, "SELECT parameters FROM fsrs_parameters")
    assert json.loads(str(stored)) == out["parameters"]
    assert rows(store_home, "SELECT count(*) FROM reviews") == [(reviews,)]
    # The next quiz starts new cards from the fitted w2.
    assert first_good_stability(run, store_home) == pytest.approx(out["parameters"][2])
