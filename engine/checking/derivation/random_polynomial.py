"""Random polynomials: sums of coefficients times products of N(0, 1) vector components.

A `Term` is a product of components at one fixed index (`free`, such as q_a² k_a) and of full
sums over an index (`bound`, such as Σ_a q_a k_a); a `RandomPolynomial` maps terms to their
deterministic coefficients (`CONSTANT` is the empty term). `RandomModel` says which names are
random, `Misconceptions` which wrong rules to apply; `display` shows a polynomial as a learner
writes it. `expectation.Lowering` builds these polynomials and reduces E and Var of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.checking.derivation.notation import name_of

Monomial = tuple[int, ...]  # the power of each random vector's component, in model order


MOMENT_PREFIX = "zzmoment"


def moment_symbol(vector: str, power: int) -> Any:
    """E[x^power] for a component x of `vector`, kept as an unknown: `zzmoment2q` is E[q_a²]."""
    import sympy

    return sympy.Symbol(f"{MOMENT_PREFIX}{power}{vector}")


def read_moment(name: str) -> tuple[int, str] | None:
    """(power, vector) for a moment symbol's name, else None."""
    if not name.startswith(MOMENT_PREFIX):
        return None
    rest = name[len(MOMENT_PREFIX) :]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if not digits or digits == len(rest):
        return None
    return int(rest[:digits]), rest[digits:]


def normal_moment(power: int) -> int:
    """E[x^power] for x ~ N(0, 1): 0 for odd powers, (power - 1)!! for even ones."""
    return 0 if power % 2 else double_factorial(power - 1)


def moments_in(expr: Any) -> set[Any]:
    """The moment symbols an expression depends on."""
    return {s for s in getattr(expr, "free_symbols", ()) if read_moment(name_of(s))}


def with_normal_moments(expr: Any, only: set[Any] | None = None) -> Any:
    """`expr` with the moments (all of them, or those in `only`) of N(0, 1) components put in."""
    import sympy

    values = {}
    for symbol in moments_in(expr):
        if only is None or symbol in only:
            power, _ = read_moment(name_of(symbol)) or (1, "")
            values[symbol] = sympy.Integer(normal_moment(power))
    return sympy.expand(expr.xreplace(values)) if values else expr


def at_normal(polynomial: RandomPolynomial, only: set[Any] | None = None) -> RandomPolynomial:
    """A random polynomial with N(0, 1) moments put into its coefficients."""
    return add({}, {t: with_normal_moments(c, only) for t, c in polynomial.items()})


def polynomial_moments(polynomial: RandomPolynomial) -> set[Any]:
    return set().union(*(moments_in(c) for c in polynomial.values()))


class CannotEvaluate(Exception):
    """The expression is readable but outside what this checker can reduce; says why."""


@dataclass(frozen=True, order=True)
class Term:
    """A product of components at fixed indices (`free`) and of full sums (`bound`)."""

    free: tuple[tuple[str, Monomial], ...] = ()
    bound: tuple[Monomial, ...] = ()

    def times(self, other: Term) -> Term:
        free = dict(self.free)
        for index, monomial in other.free:
            mine = free.get(index, (0,) * len(monomial))
            free[index] = tuple(a + b for a, b in zip(mine, monomial, strict=True))
        return Term(tuple(sorted(free.items())), tuple(sorted(self.bound + other.bound)))


CONSTANT = Term()
RandomPolynomial = dict[Term, Any]


@dataclass(frozen=True)
class RandomModel:
    """Which names are random: vectors with i.i.d. N(0, 1) components and their index ranges."""

    vectors: tuple[str, ...] = ()
    dimension: str = "d_k"
    index_sizes: Mapping[str, str] = field(default_factory=dict)  # index -> size symbol

    def component(self, name: str) -> tuple[int, str] | None:
        """(which vector, which index) for a component name such as `q_a`, else None."""
        vector, _, index = name.partition("_")
        if vector in self.vectors and self.index_sizes.get(index) == self.dimension:
            return self.vectors.index(vector), index
        return None

    def unit(self, position: int, power: int = 1) -> Monomial:
        return tuple(power if i == position else 0 for i in range(len(self.vectors)))


@dataclass(frozen=True)
class Misconceptions:
    """Wrong rules a learner may apply; all off means the correct rules."""

    variance_is_linear: bool = False  # Var(cX) = c Var(X)
    variance_ignores_constants: bool = False  # Var(cX) = Var(X)
    variance_of_sum_as_copies: bool = False  # Var(Σ_a X_a) = d² Var(X_a)
    nonzero_mean: bool = False  # E[q_a] = 1


def indices_of(name: str, indices: Mapping[str, str]) -> set[str]:
    """The indices a symbol name carries: `s_j` -> {j}, `delta_ij` -> {i, j}, `a` -> {a}."""
    if name in indices:
        return {name}
    _, underscore, subscript = name.rpartition("_")
    if underscore and subscript and all(letter in indices for letter in subscript):
        return set(subscript)
    return set()


def add(left: RandomPolynomial, right: RandomPolynomial) -> RandomPolynomial:
    """The sum of two random polynomials, dropping terms that cancel."""
    total = dict(left)
    for term, coefficient in right.items():
        summed = total.get(term, 0) + coefficient
        if summed == 0:
            total.pop(term, None)
        else:
            total[term] = summed
    return total


def set_partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every way to split `items` into blocks: which indices of a product coincide."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]


def double_factorial(n: int) -> int:
    """n!! = n (n-2) (n-4) ...; E[x^n] = (n-1)!! for an even n and x ~ N(0, 1)."""
    result = 1
    while n > 1:
        result *= n
        n -= 2
    return result


def display(polynomial: RandomPolynomial, model: RandomModel) -> Any:
    """A SymPy expression that shows a random polynomial: Σ_a(q_a·k_a) and the like."""
    import sympy

    index = next((i for i, size in model.index_sizes.items() if size == model.dimension), "a")
    total = sympy.Integer(0)
    for term, coefficient in polynomial.items():
        shown = coefficient
        for free_index, monomial in term.free:
            shown *= _monomial(monomial, free_index, model)
        for monomial in term.bound:
            inner = sympy.sstr(_monomial(monomial, index, model)).replace("*", "·")
            shown *= sympy.Symbol(f"Σ_{index}({inner})")
        total += shown
    return total


def _monomial(monomial: Monomial, index: str, model: RandomModel) -> Any:
    import sympy

    result = sympy.Integer(1)
    for vector, power in zip(model.vectors, monomial, strict=True):
        result *= sympy.Symbol(f"{vector}_{index}") ** power
    return result
