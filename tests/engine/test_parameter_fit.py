"""Fitting FSRS to the learner's reviews: enough history, the optional extra, the fit itself."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

import pytest

from engine.errors import UsageError
from engine.parameter_fit import (
    MIN_SPACED_REVIEWS,
    REVIEWS_READ_PER_CARD,
    OptimizerMissing,
    fit_parameters,
    history_size,
    load_optimizer,
)
from engine.schedule import DEFAULT_PARAMETERS, check_parameters
from engine.store.history import PastReview
from tests.engine.simulated_learner import simulated_reviews

T0 = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
NO_TORCH = "the FSRS optimizer needs torch (pip install 'attnquiz[optimize]'); CI has none"


@pytest.fixture
def optimizer_installed() -> None:
    pytest.importorskip("torch", reason=NO_TORCH)
    pytest.importorskip("pandas", reason=NO_TORCH)


def reviews_at(card: int, *offsets: timedelta) -> list[PastReview]:
    return [PastReview(card, 3, T0 + offset, None) for offset in offsets]


def test_only_reviews_a_day_or_more_after_the_previous_one_count_as_spaced() -> None:
    day, minute = timedelta(days=1), timedelta(minutes=1)
    history = [
        *reviews_at(1, timedelta(0), 10 * minute, day + 10 * minute, 3 * day),
        *reviews_at(2, timedelta(0), day - minute),  # 23 h 59 min: the same day for FSRS
    ]
    size = history_size(history)
    assert (size.reviews, size.cards, size.spaced) == (6, 2, 2)
    assert not size.enough


def test_the_optimizer_reads_only_each_cards_first_64_reviews() -> None:
    history = reviews_at(1, *(timedelta(days=2 * n) for n in range(REVIEWS_READ_PER_CARD + 10)))
    assert history_size(history).spaced == REVIEWS_READ_PER_CARD - 1


def test_a_simulated_year_of_reviews_is_enough_history() -> None:
    size = history_size(simulated_reviews(seed=3, cards=45, spaced_per_card=13))
    assert size.spaced == 45 * 13 >= MIN_SPACED_REVIEWS
    assert size.enough


@pytest.mark.parametrize("missing", ["torch", "pandas"])
def test_without_the_extra_the_message_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # `import missing` now fails
    with pytest.raises(OptimizerMissing) as caught:
        load_optimizer()
    message = str(caught.value)
    assert isinstance(caught.value, UsageError)  # exit code 2, one line
    assert "pip install 'attnquiz[optimize]'" in message and missing in message
    assert "\n" not in message
    with pytest.raises(OptimizerMissing):
        fit_parameters(simulated_reviews(seed=1, cards=2, spaced_per_card=2))


def trimmed(history: list[PastReview], spaced: int) -> list[PastReview]:
    """The history without its latest reviews, down to `spaced` spaced reviews."""
    history = sorted(history, key=lambda r: r.reviewed_at)
    while history_size(history).spaced > spaced:
        history.pop()
    return history


@pytest.mark.usefixtures("optimizer_installed")
def test_a_fit_on_a_simulated_learner_gives_a_valid_vector_of_its_own() -> None:
    history = simulated_reviews(seed=3, cards=45, spaced_per_card=13)
    fit = fit_parameters(history)
    assert fit is not None
    assert check_parameters(fit.parameters) == fit.parameters
    assert fit.parameters != tuple(DEFAULT_PARAMETERS)
    assert (fit.reviews_used, fit.cards_used) == (len(history), 45)
    assert fit.loss_before is not None and fit.loss_after is not None
    # The simulated learner forgets otherwise than the defaults assume: the fit predicts their
    # recall better, on the same reviews.
    assert fit.loss_after < fit.loss_before


@pytest.mark.usefixtures("optimizer_installed")
def test_our_threshold_is_exactly_where_the_optimizer_starts_fitting() -> None:
    history = simulated_reviews(seed=5, cards=45, spaced_per_card=13)
    assert fit_parameters(trimmed(history, MIN_SPACED_REVIEWS)) is not None
    assert fit_parameters(trimmed(history, MIN_SPACED_REVIEWS - 1)) is None
