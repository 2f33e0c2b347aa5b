"""Which rule a wrong step broke, found by comparing the two sides with the moments unknown.

Both sides of a broken `=` are reduced with the components' moments left as unknowns (μ for
E[x], m₂ for E[x²]). A classic wrong rule is a known change of those unknowns: squaring a mean
turns μ into μ², taking E[X²] for E[X]² turns μ² into m₂, adding means turns μ_q μ_k into
μ_q + μ_k. A sign error is found by flipping one term of the line. Each is named in the words
a grader would use; `WrongRules.broken_rule` returns "" when no known rule fits.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.checking.derivation.notation import name_of
from engine.checking.derivation.random_polynomial import (
    CONSTANT,
    CannotEvaluate,
    moment_symbol,
    polynomial_moments,
    read_moment,
)
from engine.checking.derivation.step import Side

if TYPE_CHECKING:
    from engine.checking.derivation.reader import StepReader

SQUARED = "{squared} is not {mean}: squaring is not a valid step"
SECOND_MOMENT = "E[X²] ≠ E[X]²: the mean of a square is not the square of the mean"
SUM_OF_MEANS = (
    "the mean of a product of independent factors is the product of the means: "
    "E[q_a k_a] = E[q_a] E[k_a], not a sum"
)
VARIANCE_SIGN = "the sign of E[X]² in Var(X) = E[X²] − E[X]² is minus"
VARIANCE_REVERSED = "Var(X) = E[X²] − E[X]², not E[X]² − E[X²]"
SIGN = "a sign is wrong: {term} should have the opposite sign"
# Var(XY) = Var(X) Var(Y) is exact for independent factors with mean 0, and the lowering
# accepts it then (`expectation.PRODUCT_OF_VARIANCES`); a step that still fails used it where
# it does not hold, or added the variances of the factors.
PRODUCT_VARIANCE = (
    "Var(XY) = Var(X) Var(Y) only for independent factors that both have mean 0, which is not "
    "the case here: for independent X and Y, Var(XY) = Var(X) Var(Y) + Var(X) E[Y]² + "
    "Var(Y) E[X]²; write Var(X) = E[X²] − E[X]² with X the product"
)
SUM_OF_VARIANCES = (
    "Var(XY) is not Var(X) + Var(Y): variances add for the independent terms of a sum, not "
    "for the factors of a product; write Var(X) = E[X²] − E[X]² with X the product"
)
MAX_SIGN_FLIPS = 8


class WrongRules:
    """Finds the classic wrong rule behind an `=` that does not hold, with one reader."""

    def __init__(self, reader: StepReader) -> None:
        self.reader = reader

    def broken_rule(self, left: Side, right: Side) -> str:
        """The classic wrong rule that turns `left` into `right`, in words, or ""."""
        try:
            return self._by_moments(left, right) or self._by_sign(left, right)
        except (CannotEvaluate, Exception, RecursionError):  # a hint is optional; a verdict is not
            return ""

    def _by_moments(self, left: Side, right: Side) -> str:
        reader = self.reader
        if not (set(left.value) <= {CONSTANT} and set(right.value) <= {CONSTANT}):
            return ""
        kind = _product_variance(right.expr)
        if kind and not _product_variance(left.expr):
            return PRODUCT_VARIANCE if kind == "product" else SUM_OF_VARIANCES
        moments = polynomial_moments(left.value) | polynomial_moments(right.value)
        if not moments:
            return ""
        import sympy

        zero = sympy.Integer(0)
        before = self._expanded(left.value.get(CONSTANT, zero))
        after = sympy.expand(right.value.get(CONSTANT, zero))
        means = sorted((s for s in moments if _power(s) == 1), key=name_of)
        seconds = {_vector(s): s for s in moments if _power(s) == 2}

        def matches(changed: Any) -> bool:
            return reader.equal_scalars(self._expanded(changed), after)

        squared_some = (
            matches(before.xreplace({m: m**2 for m in chosen}))
            for size in range(1, len(means) + 1)
            for chosen in itertools.combinations(means, size)
        )
        if means and (matches(before**2) or any(squared_some)):
            return self._squared_message(right.expr)
        for mapping, how in _second_moment_changes(means, seconds):
            changed = reader.remember(
                ("moments changed", before, tuple(mapping.items()), how),
                functools.partial(_changed, before, mapping, how),
            )
            if matches(changed):
                return SECOND_MOMENT
        if len(means) >= 2:
            product, total = sympy.Mul(*means[:2]), sympy.Add(*means[:2])
            if not before.has(total) and matches(before.subs(product, total)):
                return SUM_OF_MEANS
        return ""

    def _expanded(self, expr: Any) -> Any:
        """`sympy.expand(expr)`, remembered by the reader: the wrong rules applied to the line a
        step starts from give the same candidates for every line compared with it."""
        import sympy

        return self.reader.remember(("expanded", expr), lambda: sympy.expand(expr))

    def _squared_message(self, expr: Any) -> str:
        import sympy

        for node in sympy.preorder_traversal(expr):
            if (
                isinstance(node, sympy.Pow)
                and node.exp == 2
                and str(getattr(node.base, "func", "")) == "E"
            ):
                mean = self._shown(node.base)
                return SQUARED.format(squared=f"{mean}²", mean=mean)
        return SQUARED.format(squared="E[X]²", mean="E[X]")

    def _shown(self, mean: Any) -> str:
        shown = self.reader.show(mean)
        if shown.startswith("E(") and shown.endswith(")"):
            return f"E[{shown[2:-1]}]"
        return shown

    def _by_sign(self, left: Side, right: Side) -> str:
        """A sign error: the line follows once one of its terms (or the whole line) is
        negated."""
        import sympy

        reader = self.reader
        if reader.follows(left.value, reader.value_of(-right.expr)):
            terms = sympy.Add.make_args(sympy.expand(right.expr))
            squares = any(_is_squared_mean(t) for t in terms)
            return VARIANCE_REVERSED if squares else SIGN.format(term="the whole line")
        flips = 0
        for node in sympy.preorder_traversal(right.expr):
            if not isinstance(node, sympy.Add):
                continue
            for term in node.args:
                flips += 1
                if flips > MAX_SIGN_FLIPS:
                    return ""
                flipped = right.expr.xreplace({node: node - 2 * term})
                if reader.follows(left.value, reader.value_of(flipped)):
                    if _is_squared_mean(term):
                        return VARIANCE_SIGN
                    return SIGN.format(term=reader.show(term))
        return ""


def _second_moment_changes(means: list[Any], seconds: dict[str, Any]) -> Iterator[Any]:
    """The sides E[x]² and E[x²] mistaken for each other (or E[x] for E[x²]) would give,
    for one vector or all at once; `changed(before)` applies each."""
    pairs = [(mean, seconds.get(_vector(mean), moment_symbol(_vector(mean), 2))) for mean in means]
    for size in range(1, len(pairs) + 1):
        for chosen in itertools.combinations(pairs, size):
            yield {m**2: s for m, s in chosen}, "subs"
            yield {s: m**2 for m, s in chosen}, "subs"
            yield {m: s for m, s in chosen}, "xreplace"


def _changed(before: Any, mapping: dict[Any, Any], how: str) -> Any:
    return before.subs(mapping) if how == "subs" else before.xreplace(mapping)


def _is_squared_mean(term: Any) -> bool:
    import sympy

    return any(
        isinstance(node, sympy.Pow) and node.exp == 2 and str(getattr(node.base, "func", "")) == "E"
        for node in sympy.preorder_traversal(term)
    )


def _product_variance(expr: Any) -> str:
    """Whether an expression multiplies variances (`Var(q_a) Var(k_a)`: "product") or adds
    them (`Var(q_a) + Var(k_a)`: "sum"); "" when it does neither."""
    import sympy

    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Mul | sympy.Add):
            variances = [a for a in node.args if str(getattr(a, "func", "")) == "Var"]
            if len(variances) >= 2:
                return "product" if isinstance(node, sympy.Mul) else "sum"
    return ""


def _power(symbol: Any) -> int:
    found = read_moment(name_of(symbol))
    return found[0] if found else 0


def _vector(symbol: Any) -> str:
    found = read_moment(name_of(symbol))
    return found[1] if found else ""
