"""`attnquiz optimize [--reset] [--json]`: fit FSRS to the learner's reviews, or go back.

Exit codes: 0 when parameters were fitted and stored, when there is too little history (the
parameters in use stay; `status` says which happened), and after --reset; 1 when the optimizer
gave no usable vector (nothing stored); 2 when the optional extra is missing or the stored
parameters are damaged (the message says what to run). Reviews are only read, never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rich.markup import escape

from engine.clock import make_clock
from engine.errors import StoreError
from engine.exit_codes import verdict_code
from engine.parameter_fit import (
    MIN_SPACED_REVIEWS,
    FitFailed,
    HistorySize,
    fit_parameters,
    history_size,
    load_optimizer,
)
from engine.paths import store_dir
from engine.store import Store, open_store
from engine.store.history import review_history
from engine.store.parameters import (
    ParametersInUse,
    parameters_in_use,
    reset_to_defaults,
    save_fitted,
)
from engine.ui.json_output import print_json


@dataclass
class Outcome:
    """What one run did, for both the JSON and the human report."""

    status: str  # fitted | too_little_history | reset | already_default | fit_failed
    in_use: ParametersInUse
    previous: tuple[float, ...] | None = None
    stored: bool = False
    size: HistorySize | None = None
    loss: tuple[float | None, float | None] = (None, None)
    lines: list[str] = field(default_factory=list)
    advice: str = ""  # printed after the numbers

    def to_json(self) -> dict[str, object]:
        size = self.size.to_json() if self.size else {}
        return {
            "status": self.status,
            "stored": self.stored,
            "source": self.in_use.source,
            "parameters": list(self.in_use.parameters),
            "previous": None if self.previous is None else list(self.previous),
            "reviews_used": size.get("reviews_used"),
            "cards_used": size.get("cards_used"),
            "spaced_reviews": size.get("spaced_reviews"),
            "spaced_reviews_needed": MIN_SPACED_REVIEWS,
            "log_loss_before": self.loss[0],
            "log_loss_after": self.loss[1],
            "message": " ".join([*self.lines, self.advice]).strip(),
        }


def run_optimize(reset: bool, as_json: bool, data_dir: Path | None) -> int:
    now = make_clock()()
    store = open_store(store_dir(data_dir))
    try:
        outcome = _reset(store, now) if reset else _fit(store, now, show_progress=not as_json)
    finally:
        store.close()
    if as_json:
        print_json(outcome.to_json())
    else:
        _show(outcome)
    return verdict_code(outcome.status != "fit_failed")


def _reset(store: Store, now: datetime) -> Outcome:
    try:
        before: ParametersInUse | None = parameters_in_use(store)
    except StoreError:
        before = None  # a damaged row: going back to the defaults is the remedy
    if before is not None and before.source == "default":
        return Outcome("already_default", before, lines=["The FSRS defaults are already in use."])
    in_use = reset_to_defaults(store, now)
    return Outcome(
        "reset",
        in_use,
        previous=None if before is None else before.parameters,
        stored=True,
        lines=[
            "Back to the FSRS defaults from the next session on; earlier fits stay in the "
            "store's history."
        ],
    )


def _fit(store: Store, now: datetime, *, show_progress: bool) -> Outcome:
    current = parameters_in_use(store)
    history = review_history(store)
    size = history_size(history)
    if not size.enough:
        return _too_little(current, size)
    load_optimizer()  # says how to install it before any work is done
    try:
        if show_progress:
            from engine.ui.console import make_console

            with make_console(stderr=True).status(
                f"fitting FSRS to {size.reviews} reviews of {size.cards} cards…"
            ):
                fit = fit_parameters(history, current.parameters)
        else:
            fit = fit_parameters(history, current.parameters)
    except FitFailed as exc:
        return Outcome(
            "fit_failed",
            current,
            size=size,
            lines=[f"The fit gave no usable parameters ({exc}); nothing was stored."],
        )
    if fit is None:
        return _too_little(current, size)
    in_use = save_fitted(store, fit, now)
    return Outcome(
        "fitted",
        in_use,
        previous=current.parameters,
        stored=True,
        size=size,
        loss=(fit.loss_before, fit.loss_after),
        lines=[
            f"Fitted FSRS to {size.reviews} reviews of {size.cards} cards "
            f"({size.spaced} of them on a later day than the card's previous review).",
        ],
        advice="Quiz and drill sessions use these parameters from the next session on; "
        "attnquiz optimize --reset goes back to the defaults.",
    )


def _too_little(current: ParametersInUse, size: HistorySize) -> Outcome:
    kept = "the FSRS defaults" if current.source == "default" else "your earlier fit"
    return Outcome(
        "too_little_history",
        current,
        size=size,
        lines=[
            f"Not enough history to fit FSRS yet: it needs {MIN_SPACED_REVIEWS} reviews made at "
            "least a day after the card's previous review, and your store has "
            f"{size.spaced} (among {size.reviews} reviews of {size.cards} cards).",
            f"Nothing changed: {kept} stay in use. Keep reviewing and run attnquiz optimize "
            "again later.",
        ],
    )


def _show(outcome: Outcome) -> None:
    from engine.ui.console import make_console

    console = make_console()
    console.width = min(console.width, 80)
    for line in outcome.lines:
        console.print(escape(line))
    before, after = outcome.loss
    if before is not None and after is not None:
        console.print(
            f"log loss on those reviews: {before:.4f} → {after:.4f} "
            "(lower: your recall is predicted better)"
        )
    if outcome.previous is not None:
        console.print(_comparison(outcome.previous, outcome.in_use.parameters))
    if outcome.advice:
        console.print(escape(outcome.advice))


def _comparison(old: Sequence[float], new: Sequence[float]) -> object:
    """The vectors side by side, three columns of `w3   8.2956 → 7.9120`; unchanged ones dim."""
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    cells = []
    for index, (a, b) in enumerate(zip(old, new, strict=True)):
        text = f"w{index:<2} {a:>8.4f} → {b:<8.4f}"
        cells.append(f"[dim]{text}[/]" if a == b else text)
    rows = (len(cells) + 2) // 3
    for r in range(rows):
        table.add_row(*(cells[r + rows * c] for c in range(3) if r + rows * c < len(cells)))
    return table
