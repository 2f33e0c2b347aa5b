"""The FSRS parameters the learner's cards are scheduled with: stored fits, their history, reset.

Each fit is one row of `fsrs_parameters`, and so is each return to the defaults; the newest row is
in use, and a store that was never optimized uses the defaults. Every command that schedules
cards builds its `Scheduling` through `scheduling_for`, so a fit applies from the next session on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from engine.errors import StoreError
from engine.schedule import DEFAULT_PARAMETERS, Scheduling, check_parameters
from engine.store.reviews import Store, from_ms, read_stored_json, to_ms

Source = Literal["default", "fitted"]


@dataclass(frozen=True)
class FittedParameters:
    """What a fit produced, as it is stored: the vector and what it was fitted to."""

    parameters: tuple[float, ...]
    reviews_used: int
    cards_used: int
    loss_before: float | None = None
    loss_after: float | None = None


@dataclass(frozen=True)
class ParametersInUse:
    """The parameters scheduling uses now, and where they come from."""

    source: Source
    parameters: tuple[float, ...]
    chosen_at: datetime | None = None  # when the newest row was written; None: never optimized
    reviews_used: int | None = None
    cards_used: int | None = None
    loss_before: float | None = None
    loss_after: float | None = None

    @property
    def fitted_at(self) -> datetime | None:
        return self.chosen_at if self.source == "fitted" else None

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "parameters": list(self.parameters),
            "fitted_at": None if self.fitted_at is None else self.fitted_at.isoformat(),
            "reviews_used": self.reviews_used,
            "cards_used": self.cards_used,
            "log_loss_before": self.loss_before,
            "log_loss_after": self.loss_after,
        }

    def describe(self) -> str:
        """One line for people, e.g. `fitted to 640 reviews of 45 cards on 2026-03-01`."""
        if self.source == "fitted" and self.chosen_at is not None:
            return (
                f"fitted to {self.reviews_used} reviews of {self.cards_used} cards "
                f"on {self.chosen_at.date().isoformat()}"
            )
        if self.chosen_at is not None:
            return f"FSRS defaults (reset on {self.chosen_at.date().isoformat()})"
        return "FSRS defaults"


DEFAULTS = ParametersInUse("default", tuple(DEFAULT_PARAMETERS))


def parameters_in_use(store: Store) -> ParametersInUse:
    """The newest stored choice; StoreError when its row cannot be read back."""
    row = store.db.execute(
        "SELECT id, chosen, source, parameters, reviews_used, cards_used, loss_before, "
        "loss_after FROM fsrs_parameters ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return DEFAULTS
    row_id, chosen, source, text, reviews, cards, loss_before, loss_after = row
    try:
        if not isinstance(chosen, int):
            raise ValueError(f"its time is {chosen!r}")
        if source == "default":
            return ParametersInUse("default", DEFAULTS.parameters, from_ms(chosen))
        if source != "fitted":
            raise ValueError(f"unknown source {source!r}")
        vector = check_parameters(_json_list(text))
    except ValueError as exc:
        raise StoreError(
            f"the FSRS parameters stored in {store.path} (row {row_id}) are damaged: {exc}; "
            "your reviews are intact: run `attnquiz optimize --reset` to go back to the defaults"
        ) from exc
    return ParametersInUse(
        "fitted",
        vector,
        from_ms(chosen),
        reviews if isinstance(reviews, int) else None,
        cards if isinstance(cards, int) else None,
        loss_before if isinstance(loss_before, float) else None,
        loss_after if isinstance(loss_after, float) else None,
    )


def scheduling_for(
    store: Store, retention: float | None = None, *, fuzz: bool = True
) -> Scheduling:
    """The scheduler for this store: the desired retention (the learner's setting unless given)
    with the parameters in use."""
    if retention is None:
        from engine.store.settings import load_settings

        retention = load_settings(store).retention
    return Scheduling(retention, parameters=parameters_in_use(store).parameters, fuzz=fuzz)


def save_fitted(store: Store, fit: FittedParameters, now: datetime) -> ParametersInUse:
    """Store a fit as the parameters in use (after checking the vector once more)."""
    vector = check_parameters(fit.parameters)
    _insert(
        store,
        (
            to_ms(now),
            "fitted",
            json.dumps(list(vector)),
            fit.reviews_used,
            fit.cards_used,
            fit.loss_before,
            fit.loss_after,
            _fsrs_version(),
        ),
    )
    return parameters_in_use(store)


def reset_to_defaults(store: Store, now: datetime) -> ParametersInUse:
    """Go back to the defaults; earlier fits stay in the history."""
    _insert(store, (to_ms(now), "default", None, None, None, None, None, _fsrs_version()))
    return parameters_in_use(store)


def _insert(store: Store, values: tuple[object, ...]) -> None:
    with store.db:
        store.db.execute("BEGIN IMMEDIATE")
        store.db.execute(
            "INSERT INTO fsrs_parameters (chosen, source, parameters, reviews_used, cards_used, "
            "loss_before, loss_after, fsrs_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )


def _json_list(text: object) -> list[float]:
    if not isinstance(text, str):
        raise ValueError("the vector is missing")
    try:
        values = read_stored_json(text)
    except ValueError as exc:
        raise ValueError(f"the vector is not JSON ({exc})") from exc
    if not isinstance(values, list):
        raise ValueError("the vector is not a list")
    return values


def _fsrs_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fsrs")
    except PackageNotFoundError:
        return None
