"""What the derivation checker tells the learner: the rules a step used, or why it is wrong.

A valid step is answered with the rules it relied on (`NOTES`, most telling first). A step that
changes the value is explained by the known mistakes the drill lists, then by the classic wrong
rules (`MISCONCEPTIONS`: a dropped constant, Var(cX) = c Var(X), the variance of a sum taken as
copies, a non-zero mean), then by the standard deviation or a constant factor it is off by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.checking.derivation.expectation import PRODUCT_OF_VARIANCES
from engine.checking.derivation.random_polynomial import (
    CONSTANT,
    CannotEvaluate,
    Misconceptions,
    RandomPolynomial,
    at_normal,
)
from engine.checking.derivation.rules import WrongRules
from engine.checking.derivation.step import Side
from engine.checking.equivalence.expression import pretty

if TYPE_CHECKING:
    from engine.checking.derivation.reader import StepReader

# Classic wrong rules, tried in order on the side a wrong step started from.
MISCONCEPTIONS = (
    (
        Misconceptions(variance_ignores_constants=True),
        "a constant factor was dropped: Var(cX) = c² Var(X), so the factor still counts",
    ),
    (
        Misconceptions(variance_is_linear=True),
        "a constant comes out of a variance squared: Var(cX) = c² Var(X), "
        "so Var(X/√{d}) = Var(X)/{d}",
    ),
    (
        Misconceptions(variance_of_sum_as_copies=True),
        "the terms of the sum are independent, so their variances add: "
        "Var(Σ_a X_a) = Σ_a Var(X_a), which is {d} times Var(X_a), not {d}² times",
    ),
    (
        Misconceptions(nonzero_mean=True),
        "each component has mean 0, so E[q_a] E[k_a] = 0 · 0 = 0 (it is E[q_a²] that is 1)",
    ),
)

# A line with the step's value only through Var(XY) = Var(X) Var(Y), which the step does not use.
PRODUCT_VARIANCE_FORM = (
    "a true step, but not the one asked for: Var(XY) = Var(X) Var(Y) holds here only because "
    "the factors are independent and both have mean 0 (in general Var(XY) = Var(X) Var(Y) + "
    "Var(X) E[Y]² + Var(Y) E[X]²); this step asks for {form}"
)
# What such a step asks for instead: the variance of each product kept, or written out.
KEEP_VARIANCE = "the variance of each product, Var(XY), as it stands"
WRITE_VARIANCE = "the E[X²] − E[X]² form with X the product: Var(XY) = E[(XY)²] − E[XY]²"

# What a valid step relied on, most telling first.
NOTES = {
    PRODUCT_OF_VARIANCES: (
        "Var(XY) = Var(X) Var(Y) holds here because the factors are independent and both "
        "have mean 0, not in general"
    ),
    "independence": "E[q_a k_a] = E[q_a] E[k_a] needs independence, which holds here",
    "Var(cX) = c² Var(X)": "a constant comes out of a variance squared: Var(cX) = c² Var(X)",
    "variance of a sum of independent terms": "variances of independent terms add",
    "Var(X) = E[X²] - E[X]²": "Var(X) = E[X²] − E[X]²",
    "zero mean": "E[q_a] = 0 for an N(0, 1) component",
    "unit variance": "E[q_a²] = 1 for an N(0, 1) component",
    "sum of a constant": "a sum of {d} equal terms is {d} times the term",
    "linearity of E": "E is linear",
    "dot product": "q·k = Σ_a q_a k_a",
}
MAX_NOTES = 2


class Feedback:
    """What the learner is told about a step, worded with one reader."""

    def __init__(self, reader: StepReader) -> None:
        self.reader = reader
        self.wrong_rules = WrongRules(reader)

    def correct(self, rules: set[str]) -> str:
        """`correct`, with at most `MAX_NOTES` of the rules the step relied on."""
        if "Var(X) = E[X²] - E[X]²" in rules:  # the definition, not the sum rule, was used
            rules = rules - {"variance of a sum of independent terms"}
        notes = [note for rule, note in NOTES.items() if rule in rules][:MAX_NOTES]
        dimension = self.reader.assumptions.dimension
        return "correct" + ("; " + "; ".join(notes) if notes else "").replace("{d}", dimension)

    def explain(
        self, left: Side, right: Side, from_previous: bool, known: list[tuple[Side, str]]
    ) -> str:
        """Why the `=` between `left` and `right` does not hold, naming the rule broken if known."""
        left_random = any(term != CONSTANT for term in left.value)
        right_random = any(term != CONSTANT for term in right.value)
        if left_random != right_random:
            random_side, fixed_side = (left, right) if left_random else (right, left)
            return (
                f"{random_side.shown} is a random quantity but {fixed_side.shown} is a number: "
                "only constants come out of E[...] or Var(...), so keep each component inside "
                "its E"
            )
        start = (
            "this line does not follow from the previous one"
            if from_previous
            else "this step changes the value"
        )
        rule = self.wrong_rules.broken_rule(left, right)
        left_value = self.reader.show_value(left.value)
        right_value = self.reader.show_value(right.value)
        if self.reader.same_normal(left.value, right.value):
            head = (
                f"{start}: both sides are {left_value} only because the components are N(0, 1), "
                "which does not make the step valid"
            )
            hint = rule or (
                "each `=` must hold by the rules (linearity, independence, "
                "Var(X) = E[X²] − E[X]²), or put the assumption in openly, as in E[q_a] = 0"
            )
            return f"{head}; {hint}"
        head = (
            f"{start}: {left.shown} is {left_value}, your line gives {right_value}"
            if left.shown != left_value
            else f"{start}: it should stay {left_value}, your line gives {right_value}"
        )
        hint = (
            rule
            or self.known_mistake(right.value, known)
            or self.diagnose(left, right.value, known)
        )
        return head + (f"; {hint}" if hint else "")

    def known_mistake(self, given: RandomPolynomial, known: list[tuple[Side, str]]) -> str:
        for wrong, message in known:
            if self.reader.same_normal(given, wrong.value):
                return message
        return ""

    def diagnose(
        self, reference: Side, given: RandomPolynomial, known: list[tuple[Side, str]]
    ) -> str:
        """Which classic wrong rule turns `reference` into the value the learner gave, if any."""
        import sympy

        dimension = self.reader.assumptions.dimension
        for misconception, message in MISCONCEPTIONS:
            try:
                wrong = self.reader.value_of(reference.expr, misconception)
            except CannotEvaluate:
                continue
            if self.reader.same_normal(wrong, given) and not self.reader.same_normal(
                wrong, reference.value
            ):
                return message.replace("{d}", dimension)
        given, expected = at_normal(given), at_normal(reference.value)
        if set(given) | set(expected) <= {CONSTANT}:
            zero = sympy.Integer(0)
            right, wrong_value = expected.get(CONSTANT, zero), given.get(CONSTANT, zero)
            has_variance = any(str(f.func) == "Var" for f in reference.expr.atoms(sympy.Function))
            if (
                has_variance
                and right != 0
                and self.reader.equal_scalars(wrong_value, sympy.sqrt(right))
            ):
                return "that is the standard deviation, √Var; the variance is its square"
            if right != 0 and wrong_value != 0 and sympy.count_ops(wrong_value / right) < 20:
                quotient = wrong_value / right  # the same wrong values come back: cancel once
                ratio = self.reader.remember(
                    ("cancelled", quotient), lambda: sympy.cancel(quotient)
                )
                if ratio.free_symbols <= {sympy.Symbol(dimension)} and ratio != 1:
                    return f"your value is {pretty(ratio)} times the right one"
        return ""
