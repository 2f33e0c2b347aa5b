"""Where the symbols of a question live, and how to draw a random point there.

The numeric equivalence test (`numeric`) evaluates two answers at random points, so the points
must come from the domain the question means: a head dimension is a positive integer, a
probability lies in (0, 1), a matrix is a matrix. Kronecker deltas need more than a range: in
`p_i (δ_ij − p_j)` the symbols are tied together by their indices, and `p_j (δ_ij − p_i)` has
the same value only because δ_ij = 1 forces i = j and with it p_i = p_j. So a symbol named
`delta_ij` is read as the Kronecker delta of the indices i and j, a symbol such as `p_i` as
entry i of a family `p`, and every point draws index values first: some points put all indices
equal, others keep them apart, and the deltas and the family entries follow from them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.errors import BankError

if TYPE_CHECKING:  # NumPy loads with the first check, not with this module
    import numpy as np

# Matrices are square so that every product and transpose of the symbols is defined.
MATRIX_SIZE = 3
# The domains of undeclared scalars, positive and integer symbols.
FREE_RANGE = (-3.0, 3.0)
POSITIVE_RANGE = (0.5, 5.0)
INTEGER_RANGE = (1, 5)
# How large the values of a declared range may be. Beyond 1e150 (or below 1e-150) the products
# and powers of test points overflow or underflow, so no answer can be checked: such a range is
# refused. Test points are compared to 1e-9 relative and 1e-12 absolute, so outside
# RANGE_TELLS_APART `x + 1` passes for `x` (large) or `-x` for `x` (small): such a range still
# loads, as it always did (a user's bank keeps working), and lint warns about it.
RANGE_MAGNITUDES = (1e-150, 1e150)
RANGE_TELLS_APART = (1e-9, 1e8)


_DELTA = re.compile(r"delta_([A-Za-z])([A-Za-z])")
_ENTRY = re.compile(r"(?P<family>[A-Za-z][A-Za-z0-9]*)_(?P<index>[A-Za-z])")


@dataclass(frozen=True)
class Domain:
    """What a question declares about its scalar symbols.

    `ranges` maps a symbol to an open interval (low, high); an `integer` symbol takes the whole
    numbers from low to high, both included. `kronecker` reads `delta_ij` as the Kronecker delta
    (turn it off to treat it as an independent symbol, i.e. to compare by form).
    """

    positive: frozenset[str] = frozenset()
    integer: frozenset[str] = frozenset()
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    kronecker: bool = True

    def sampler(self, symbols: Iterable[Any]) -> PointSampler:
        return PointSampler(self, list(symbols))


def range_problem(name: str, bounds: object, *, integer: bool = False) -> str | None:
    """Why `bounds` is no usable range for `name`, or None when it is one."""
    try:
        low, high = (float(b) for b in bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return f"the range of {name} must be two numbers (low, high), not {bounds!r}"
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        return f"the range of {name} must have finite bounds with low < high, not {bounds!r}"
    if not RANGE_MAGNITUDES[0] <= _largest(low, high) <= RANGE_MAGNITUDES[1]:
        return (
            f"the range of {name} must reach between {RANGE_MAGNITUDES[0]:g} and "
            f"{RANGE_MAGNITUDES[1]:g} in size, not {bounds!r}: at other sizes the test points "
            "overflow (rescale the symbol)"
        )
    if integer and math.floor(high) < math.ceil(low):
        return f"the range of {name} holds no integer, yet {name} is declared integer"
    return None


def _largest(low: float, high: float) -> float:
    return max(abs(low), abs(high))


def range_weakness(name: str, bounds: tuple[float, float]) -> str | None:
    """Lint's warning for a usable range at a size where the random test is weak, or None."""
    largest = _largest(float(bounds[0]), float(bounds[1]))
    if RANGE_TELLS_APART[0] <= largest <= RANGE_TELLS_APART[1]:
        return None
    return (
        f"the range of {name} reaches {largest:g} in size: outside "
        f"{RANGE_TELLS_APART[0]:g}..{RANGE_TELLS_APART[1]:g} the random test cannot tell "
        f"{name} + 1 from {name}, or -{name} from {name} (rescale the symbol)"
    )


class PointSampler:
    """Draws points for a fixed list of SymPy symbols; the n-th point is a function of n and rng."""

    def __init__(self, domain: Domain, symbols: list[Any]) -> None:
        self.domain = domain
        self.symbols = symbols
        names = {symbol.name for symbol in symbols if symbol.is_commutative}
        self.deltas: dict[str, tuple[str, str]] = {}
        if domain.kronecker:
            for name in names:
                match = _DELTA.fullmatch(name)
                if match:
                    self.deltas[name] = (match.group(1), match.group(2))
        self.indices = sorted({index for pair in self.deltas.values() for index in pair})
        # Entries `p_i` of a family `p`, for the indices that some delta ties together.
        self.entries: dict[str, tuple[str, str]] = {}
        for name in names - set(self.deltas):
            match = _ENTRY.fullmatch(name)
            if match and match.group("index") in self.indices:
                self.entries[name] = (match.group("family"), match.group("index"))

    def sample(self, rng: np.random.Generator, number: int) -> dict[Any, Any]:
        index_values = self._index_values(rng, number)
        family_values: dict[tuple[str, int], complex] = {}
        values: dict[Any, Any] = {}
        for symbol in self.symbols:
            name = symbol.name
            if not symbol.is_commutative:
                values[symbol] = rng.uniform(-1.0, 1.0, size=(MATRIX_SIZE, MATRIX_SIZE))
            elif name in self.deltas:
                i, j = self.deltas[name]
                values[symbol] = complex(float(index_values[i] == index_values[j]))
            elif name in self.entries:
                family, index = self.entries[name]
                key = (family, index_values[index])
                if key not in family_values:  # p_i and p_j are one value when i == j
                    family_values[key] = self._scalar(name, rng)
                values[symbol] = family_values[key]
            else:
                values[symbol] = self._scalar(name, rng)
        return values

    def _index_values(self, rng: np.random.Generator, number: int) -> dict[str, int]:
        """Point 0 puts every index equal, point 1 keeps them all apart, later points mix."""
        count = len(self.indices)
        if number % 4 == 0:
            drawn = [0] * count
        elif number % 4 == 1:
            drawn = list(range(count))
        else:
            drawn = [int(v) for v in rng.integers(0, max(count, 1), size=count)]
        return dict(zip(self.indices, drawn, strict=True))

    def _scalar(self, name: str, rng: np.random.Generator) -> complex:
        domain = self.domain
        bounds = domain.ranges.get(name)
        if name in domain.integer:
            first, last = INTEGER_RANGE
            if bounds is not None:  # the whole numbers in [low, high]
                first, last = math.ceil(bounds[0]), math.floor(bounds[1])
            if name in domain.positive:
                first = max(first, 1)
            return complex(int(rng.integers(first, max(first, last) + 1)))
        if bounds is None:
            bounds = POSITIVE_RANGE if name in domain.positive else FREE_RANGE
        low, high = bounds
        if name in domain.positive and high > 0:
            low = max(low, 0.0)
        # Stay clear of the ends: the interval is open, and a probability of exactly 0 or 1
        # can make both sides undefined at once.
        margin = 1e-3 * (high - low)
        return complex(rng.uniform(low + margin, high - margin))


def declare_domain(
    *,
    positive: Iterable[str] = (),
    integer: Iterable[str] = (),
    ranges: Mapping[str, tuple[float, float]] | None = None,
    kronecker: bool = True,
) -> Domain:
    """A Domain from the keyword arguments of the public checking functions.

    Raises BankError for a range that is no interval; the bank's author must fix it.
    """
    integer = frozenset(integer)
    checked: dict[str, tuple[float, float]] = {}
    for name, bounds in (ranges or {}).items():
        problem = range_problem(name, bounds, integer=name in integer)
        if problem:
            raise BankError([problem])
        checked[name] = (float(bounds[0]), float(bounds[1]))
    return Domain(frozenset(positive), integer, checked, kronecker)


def is_kronecker_delta(name: str) -> bool:
    """Whether a symbol name reads as a Kronecker delta of two indices, like `delta_ij`."""
    return _DELTA.fullmatch(name) is not None
