"""What a computation is: named inputs with kinds, a formula, and the classic slips.

A computed card (engine/cards/computed.py) or a number card names one computation of the
catalogue (engine/cards/catalogue.py) and gives its inputs. This module holds the pieces every
computation shares: how an input is checked, shown in a prompt and drawn afresh for a review.
Nothing here imports NumPy; drawing takes the random generator from its caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Value = float | list[Any]
Inputs = dict[str, Any]

DTYPE_BYTES = {"float16": 2, "float32": 4, "float64": 8}
BYTE_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
FLOP_UNITS = {"FLOP": 1, "MFLOP": 10**6, "GFLOP": 10**9, "TFLOP": 10**12}
COUNT_UNITS = {"one": 1, "thousand": 10**3, "million": 10**6, "billion": 10**9}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# What a drawn input may be: small integers keep the arithmetic doable by hand.
SCORE_RANGE = (-2, 2)
MATRIX_RANGE = (-2, 2)
HEAD_DIMS = (2, 4, 8, 16, 32, 64, 128, 256, 512)
LENGTHS = (128, 256, 512, 1024, 2048, 4096, 8192)
DRAW_ATTEMPTS = 50

ParamKind = Literal[
    "vector", "matrix", "index", "count", "dim", "length", "dtype", "unit", "flag", "positive"
]
DRAWABLE_KINDS = frozenset({"vector", "matrix", "dim", "length", "dtype"})


@dataclass(frozen=True)
class Param:
    """One input of a computation: its kind says how it is checked, shown and drawn."""

    kind: ParamKind
    default: Any = None  # None: the bank must give it
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Slip:
    """A classic wrong way to compute the value, and what to tell a learner who made it."""

    message: str
    value: Callable[[Inputs], Value | None]


@dataclass(frozen=True)
class Computation:
    name: str
    params: dict[str, Param]
    formula: Callable[[Inputs], Value]
    # Constraints between inputs (matching shapes, indices in range): a message, or None.
    consistent: Callable[[Inputs], str | None] = lambda inputs: None
    slips: tuple[Slip, ...] = ()

    def complete(self, inputs: Inputs) -> Inputs:
        return {
            name: inputs.get(name, param.default)
            for name, param in self.params.items()
            if name in inputs or param.default is not None
        }

    def validate(self, inputs: Inputs) -> None:
        """Raise ValueError naming the author's mistake in `inputs`, if there is one."""
        unknown = sorted(set(inputs) - set(self.params))
        if unknown:
            raise ValueError(
                f"{self.name} has no input {unknown[0]!r} (its inputs: {', '.join(self.params)})"
            )
        for name, param in self.params.items():
            if name not in inputs:
                if param.default is None:
                    raise ValueError(f"{self.name} needs the input {name!r}")
                continue
            problem = _param_problem(param, inputs[name])
            if problem:
                raise ValueError(f"input {name!r} of {self.name}: {problem}")
        problem = self.consistent(self.complete(inputs))
        if problem:
            raise ValueError(f"inputs of {self.name}: {problem}")

    def drawable(self) -> tuple[str, ...]:
        return tuple(name for name, p in self.params.items() if p.kind in DRAWABLE_KINDS)

    def draw(self, rng: Any, inputs: Inputs, names: tuple[str, ...]) -> Inputs:
        """Fresh values for `names` (same shapes as the bank's), the others kept.

        Only sensible ones: no vector or matrix row of zeros (a query that matches nothing),
        and an answer that is not all zeros, drawing again (from the same seeded generator, so
        still reproducible) until both hold; the bank's inputs if no draw of a few does.
        """
        for _ in range(DRAW_ATTEMPTS):
            drawn = self._draw_once(rng, inputs, names)
            if self._sensible(drawn, names):
                return drawn
        return dict(inputs)

    def _sensible(self, inputs: Inputs, names: tuple[str, ...]) -> bool:
        for name in names:
            value = inputs[name]
            kind = self.params[name].kind
            rows = [value] if kind == "vector" else value if kind == "matrix" else []
            if any(not any(row) for row in rows):
                return False
        try:
            truth = self.truth(inputs)
        except (KeyError, IndexError, TypeError, ValueError):
            return True  # incomplete inputs (a caller drawing parts): the rows are checked
        return any(abs(x) > 1e-12 for x in _numbers(truth))

    def _draw_once(self, rng: Any, inputs: Inputs, names: tuple[str, ...]) -> Inputs:
        drawn = dict(inputs)
        for name in names:
            param = self.params[name]
            old: Any = self.complete(inputs)[name]
            if param.kind == "vector":
                drawn[name] = [
                    int(x) for x in rng.integers(*SCORE_RANGE, endpoint=True, size=len(old))
                ]
            elif param.kind == "matrix":
                shape = (len(old), len(old[0]))
                values = rng.integers(*MATRIX_RANGE, endpoint=True, size=shape)
                drawn[name] = [[int(x) for x in row] for row in values]
            else:
                pool = {"dim": HEAD_DIMS, "length": LENGTHS, "dtype": tuple(DTYPE_BYTES)}[
                    param.kind
                ]
                drawn[name] = pool[int(rng.integers(len(pool)))]
        return drawn

    def truth(self, inputs: Inputs) -> Value:
        return self.formula(self.complete(inputs))


def _param_problem(param: Param, value: Any) -> str | None:
    def is_number(x: Any) -> bool:
        return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)

    def is_row(x: Any) -> bool:
        return isinstance(x, list) and 1 <= len(x) <= 8 and all(is_number(v) for v in x)

    if param.kind == "vector":
        return None if is_row(value) else "expected a list of 1 to 8 finite numbers"
    if param.kind == "matrix":
        if not (isinstance(value, list) and 1 <= len(value) <= 8 and all(map(is_row, value))):
            return "expected a matrix: a list of 1 to 8 rows of 1 to 8 numbers"
        return None if len({len(row) for row in value}) == 1 else "its rows differ in length"
    if param.kind in {"index", "count", "dim", "length"}:
        ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 2**20
        return None if ok else "expected a whole number from 1 (indices count from 1)"
    if param.kind == "positive":
        return None if is_number(value) and value > 0 else "expected a positive number"
    if param.kind == "dtype":
        return None if value in DTYPE_BYTES else f"expected one of {', '.join(DTYPE_BYTES)}"
    if param.kind == "unit":
        return None if value in param.choices else f"expected one of {', '.join(param.choices)}"
    return None if isinstance(value, bool) else "expected true or false"


def _numbers(value: Any) -> list[float]:
    if isinstance(value, list | tuple):
        return [x for v in value for x in _numbers(v)]
    return [float(value)]


def describe_inputs(computation: Computation, inputs: Inputs) -> dict[str, str]:
    """The text each `{placeholder}` of a prompt stands for."""
    shown: dict[str, str] = {}
    for name, value in computation.complete(inputs).items():
        kind = computation.params[name].kind
        shown[name] = show_input(value)
        if kind == "dtype":
            shown[f"{name}_bytes"] = str(DTYPE_BYTES[value])
        if kind == "index":
            shown[f"{name}_ordinal"] = (
                ORDINALS[value - 1] if value <= len(ORDINALS) else f"#{value}"
            )
    return shown


def show_input(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(show_input(v) for v in value) + "]"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
