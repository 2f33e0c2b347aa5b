"""Numbers a bank states, tied to the computation that must give them.

A bank author who types a number (the answer of a number card, or a value quoted in a prompt
such as "row 0 of the weights is about [0.471, 0.264, 0.264]") names the computation of the
catalogue that produces it. Lint recomputes it and, when the typed number is off, says which
item, what was typed and what the kernel computed, so a slip of the keyboard never reaches a
learner.

    stated:
      - value: [0.471, 0.264, 0.264]
        compute: attention_weights_row
        inputs: {Q: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], K: ..., row: 1}
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.cards.catalogue import computation_named
from engine.cards.computation import Inputs, Value, show_input

Stated = float | list[float] | list[list[float]]


class StatedValue(BaseModel):
    """A value written in an item's text, with the computation and inputs that give it.

    Without a tolerance, the value must be right to the decimals written: 0.264 allows 0.0005.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: Stated
    compute: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    abs_tol: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    rel_tol: Annotated[float, Field(ge=0, le=1)] | None = None

    @model_validator(mode="after")
    def _known_computation(self) -> StatedValue:
        computation_named(self.compute).validate(self.inputs)
        return self

    def problem(self) -> str | None:
        """What is wrong with the stated value, or None when the kernel agrees with it."""
        return recomputed_problem(
            "the bank states", self.value, self.compute, self.inputs, self.abs_tol, self.rel_tol
        )


def recomputed_problem(
    what: str,
    stated: Value,
    compute: str,
    inputs: Inputs,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
) -> str | None:
    """None if `stated` matches what `compute` gives for `inputs`, else a message saying both."""
    truth = computation_named(compute).truth(inputs)
    given, wanted = _flatten(stated), _flatten(truth)
    agree = len(given) == len(wanted) and all(
        _close(g, w, abs_tol, rel_tol) for g, w in zip(given, wanted, strict=True)
    )
    if agree:
        return None
    where = ", ".join(f"{k}={show_input(v)}" for k, v in inputs.items())
    return f"{what} {show_input(stated)}, but {compute}({where}) computes {_show(truth)}"


def _close(given: float, wanted: float, abs_tol: float | None, rel_tol: float | None) -> bool:
    if abs_tol is None and rel_tol is None:
        abs_tol = written_precision(given)
    bound = max(abs_tol or 0.0, (rel_tol or 0.0) * abs(wanted))
    return math.isfinite(wanted) and abs(given - wanted) <= bound + 1e-12


def written_precision(value: float) -> float:
    """Half a unit of the last decimal written: 0.264 → 0.0005, 16 → 0.5."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        return abs(value) * 5e-3
    decimals = len(text.split(".")[1].rstrip("0")) if "." in text else 0
    return 0.5 * 10.0**-decimals


def _flatten(value: Any) -> list[float]:
    if isinstance(value, list):
        return [x for v in value for x in _flatten(v)]
    return [float(value)]


def _show(value: Value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return f"{float(value):.6g}"
