"""Fitting FSRS parameters to the learner's own reviews with py-fsrs's optimizer.

The optimizer needs torch and pandas, which come with the optional extra `attnquiz[optimize]`;
they are imported only here, only when a fit is asked for. How much history is enough follows
the optimizer itself: it learns only from reviews that come on a later day than the card's
previous review (among each card's first 64), and with fewer than 512 of those it returns the
defaults unchanged. We count them first, without torch, so a learner with too little history
hears so at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

from engine.errors import AttnquizError, UsageError
from engine.schedule import DEFAULT_PARAMETERS, check_parameters
from engine.store.history import PastReview
from engine.store.parameters import FittedParameters

# The optimizer's `mini_batch_size` and `max_seq_len` (fsrs 6): below one mini-batch of spaced
# reviews it returns the default parameters; it reads at most 64 reviews of each card.
MIN_SPACED_REVIEWS = 512
REVIEWS_READ_PER_CARD = 64
INSTALL_COMMAND = "pip install 'attnquiz[optimize]'"


class OptimizerMissing(UsageError):
    """torch or pandas is not installed: the optional extra is needed."""


class FitFailed(AttnquizError):
    """The optimizer produced no usable parameter vector; the message says why, in our words."""


@dataclass(frozen=True)
class HistorySize:
    """How much there is to learn from."""

    reviews: int
    cards: int
    spaced: int  # reviews on a later day than the card's previous review: what the fit uses

    @property
    def enough(self) -> bool:
        return self.spaced >= MIN_SPACED_REVIEWS

    def to_json(self) -> dict[str, int]:
        return {
            "reviews_used": self.reviews,
            "cards_used": self.cards,
            "spaced_reviews": self.spaced,
            "spaced_reviews_needed": MIN_SPACED_REVIEWS,
        }


def history_size(history: Sequence[PastReview]) -> HistorySize:
    """Count reviews, cards and spaced reviews the way the optimizer does."""
    times: dict[int, list[datetime]] = {}
    for review in history:
        times.setdefault(review.card, []).append(review.reviewed_at)
    spaced = 0
    for card_times in times.values():
        read = sorted(card_times)[:REVIEWS_READ_PER_CARD]
        # timedelta.days > 0: at least 24 hours after the previous review, as the optimizer asks.
        spaced += sum((later - earlier).days > 0 for earlier, later in pairwise(read))
    return HistorySize(len(history), len(times), spaced)


def load_optimizer() -> Any:
    """py-fsrs's Optimizer class, or OptimizerMissing saying how to install it."""
    import importlib

    missing = []
    for name in ("torch", "pandas", "tqdm"):  # what fsrs's `optimizer` extra brings
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise OptimizerMissing(
            f"fitting FSRS parameters needs {' and '.join(missing)} (not installed): run "
            f"{INSTALL_COMMAND}, then attnquiz optimize again; your schedule is unchanged"
        )
    from fsrs.optimizer import Optimizer

    return Optimizer


def fit_parameters(
    history: Sequence[PastReview], current: Sequence[float] = DEFAULT_PARAMETERS
) -> FittedParameters | None:
    """Fit a parameter vector to the history; None when the optimizer kept the defaults.

    The log loss before is that of the `current` parameters (those in use), on the same reviews.

    Raises FitFailed when the optimizer produced no usable vector (NaN, out of bounds).
    """
    optimizer_class = load_optimizer()
    import torch
    from fsrs import Rating, ReviewLog

    logs = [
        ReviewLog(
            card_id=r.card,
            rating=Rating(r.grade),
            review_datetime=r.reviewed_at,
            review_duration=r.duration_ms,
        )
        for r in history
    ]
    optimizer = optimizer_class(logs)
    try:
        fitted = optimizer.compute_optimal_parameters(verbose=False)
    except ValueError as exc:  # py-fsrs's own failure: its text is not for the learner
        raise FitFailed(f"the optimizer stopped ({type(exc).__name__})") from exc
    if fitted is None:
        raise FitFailed("the optimizer found no parameters better than infinite loss")
    try:
        vector = check_parameters([float(w) for w in fitted])
    except ValueError as exc:  # our own words: which parameter, and what is wrong with it
        raise FitFailed(str(exc)) from exc
    if vector == tuple(DEFAULT_PARAMETERS):
        return None
    with torch.no_grad():
        before = _log_loss(optimizer, current)
        after = _log_loss(optimizer, vector)
    size = history_size(history)
    return FittedParameters(vector, size.reviews, size.cards, before, after)


def _log_loss(optimizer: Any, parameters: Sequence[float]) -> float | None:
    """Mean log loss of the spaced reviews' recall under these parameters, if fsrs offers it.

    `_compute_batch_loss` is private to py-fsrs; if a release renames it, the fit still works
    and only this comparison is left out.
    """
    compute = getattr(optimizer, "_compute_batch_loss", None)
    if compute is None:
        return None
    try:
        loss = float(compute(parameters=list(parameters)))
    except (TypeError, ValueError, RuntimeError):
        return None
    return loss if math.isfinite(loss) else None
