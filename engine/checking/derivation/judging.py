"""Judging one line of a derivation: which `=` hold, and whether it reaches the step asked for.

`Judge.judge` walks the chain previous line = side = side ..., collects the links that do not hold
(`BrokenLink`) and the rules the ones that hold relied on, then asks whether the last side is the
expected step, in closed form when the expected step is closed. The words it says come from
`messages`.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from engine.checking.derivation.expectation import PRODUCT_OF_VARIANCES
from engine.checking.derivation.messages import (
    KEEP_VARIANCE,
    NOTES,
    PRODUCT_VARIANCE_FORM,
    WRITE_VARIANCE,
    Feedback,
)
from engine.checking.derivation.reader import StepReader
from engine.checking.derivation.step import BrokenLink, Side, StepVerdict
from engine.checking.derivation.substitution import Substitutions

CANONICAL_KEPT = 1024
MISPLACED = (
    "the value is right, but not how you got it: each E, Var or Σ you replace by a number "
    "must become its own value, with the same operations (×, −, /) around it as in the line "
    "before"
)


class Judge:
    """The verdict on a line of a derivation, with one reader (`judge`)."""

    def __init__(self, reader: StepReader) -> None:
        self.reader = reader
        self.feedback = Feedback(reader)
        self.substitutions = Substitutions(reader)

    def judge(
        self,
        before: Side | None,
        sides: list[Side],
        target: Side | None,
        known: list[tuple[Side, str]],
        *,
        continuation: bool = False,
    ) -> StepVerdict:
        """The verdict on `sides` (one line) after the line `before`, aiming at `target`."""
        reader = self.reader
        chain = ([before] if before is not None else []) + sides
        broken: list[BrokenLink] = []
        message = ""
        rules: set[str] = set()
        for position, (left, right) in enumerate(itertools.pairwise(chain)):
            from_previous = before is not None and position == 0
            follows = reader.follows(left.value, right.value)
            misplaced = follows and self.substitutions.misplaced(left.text, right.text)
            loose = follows and bool(_new_index(reader, left, right))
            if follows and not misplaced and not loose:
                rules |= _rules_of_link(left, right)
                continue
            broken.append(
                BrokenLink(
                    left=left.shown,
                    right=right.shown,
                    left_value=reader.show_value(left.value),
                    right_value=reader.show_value(right.value),
                    from_previous_line=from_previous,
                )
            )
            message = message or (
                MISPLACED
                if misplaced
                else _index_message(reader, left, right)
                if loose
                else self.feedback.explain(left, right, from_previous, known)
            )
        last = sides[-1]
        reaches, not_there = self._reaches(before, last, target, known)
        if not reaches and before is not None and len(sides) > 1 and restates(before, last):
            # `e^{s_i - m}/Σ_j e^{s_j - m} = e^{s_i}/Σ_j e^{s_j}`: the step, then back to the line
            # it came from, stating the identity; the step is the side before the return.
            reaches = any(self._reaches(before, side, target, known)[0] for side in sides[:-1])
        if target is not None and self._sideways(last, target):
            keeps_variance = "3 variance" in form_of(target.expr)
            reaches = False
            not_there = PRODUCT_VARIANCE_FORM.format(
                form=KEEP_VARIANCE if keeps_variance else WRITE_VARIANCE
            )
        if not broken:
            message = not_there if not reaches else self.feedback.correct(rules)
        ordered = tuple(rule for rule in NOTES if rule in rules)
        return StepVerdict(
            readable=True,
            valid=not broken,
            reaches_expected=reaches,
            interpreted_as=("= " if continuation else "") + " = ".join(s.shown for s in sides),
            message=message,
            broken=tuple(broken),
            value=reader.show_value(last.value),
            last_side=last.text,
            rules=ordered if not broken else (),
            closed=reader.is_closed(last),
        )

    def _reaches(
        self,
        before: Side | None,
        last: Side,
        target: Side | None,
        known: list[tuple[Side, str]],
    ) -> tuple[bool, str]:
        """Whether the line ends at the step asked for (or beyond it), and if not, why not."""
        reader = self.reader
        if target is None:
            return True, ""
        if (
            before is not None
            and restates(before, last)
            and (not restates(before, target) or _same_text(before, last))
        ):
            return False, "that is the line you started from; write the next step"
        if not reader.follows(target.value, last.value):
            if reader.same_normal(target.value, last.value):
                return False, self._not_there_yet(target, last)
            hint = (
                self.feedback.diagnose(target, last.value, known)
                if not reader.is_closed(target)
                else ""
            )
            hint = hint or self.feedback.known_mistake(last.value, known)
            return False, (
                f"your line gives {reader.show_value(last.value)}, which is not what this step "
                "asks for" + (f"; {hint}" if hint else "")
            )
        if reader.is_closed(target) and not reader.is_closed(last):
            return False, CLOSED_FORM
        unfinished = _unfinished(last, target)
        if unfinished:
            return False, "right so far, but not yet this step: " + UNFINISHED[min(unfinished)]
        if not self._same_fraction(target, last):
            return False, (
                "right value, but not the fraction this step asks for: it asks for "
                f"{target.shown}, with that numerator and denominator"
            )
        return True, ""

    def _sideways(self, last: Side, target: Side) -> bool:
        """Whether a line has the step's value only through Var(XY) = Var(X) Var(Y), which the
        step, asking for a form that is not a number, does not use: true here, not the step."""
        reader = self.reader
        return (
            _product_of_variances(last)
            and not _product_of_variances(target)
            and not reader.is_closed(target)
            and reader.follows(target.value, last.value)
        )

    def _same_fraction(self, target: Side, last: Side) -> bool:
        """Whether `last` is the fraction `target` is, when both are fractions with a symbolic
        denominator: the same numerator up to a number (`T d_k/(4(d_k + T))` and
        `0.25 T d_k/(d_k + T)`), not the same value reached another way (`1/(4(1/T + 1/d_k))` for
        `d_k/(4(1 + d_k/T))`, `2T² d_k/(8T d_k + 8T²)` left unsimplified, or top and bottom
        multiplied by e^m where the step asks for e^{-m}). A factor in names the asked fraction
        does not use is not about its form (e^{s_i - m}/Σ_j e^{s_j - m} where only the value of
        e^{s_i}/Σ_j e^{s_j} is asked for). A denominator asked for as a sum is a sum, not a
        factor times a sum (e^{-m} Σ_j e^{s_j} for Σ_j e^{s_j - m}). Both are read as written
        where SymPy can (`StepReader.as_written`): its own simplification would cancel the
        e^{-m} the step is about.
        """
        reader = self.reader
        import sympy

        try:
            written = reader.as_written(target)
            top, bottom = sympy.fraction(written, exact=True)
            if not bottom.free_symbols:
                return True  # (before reading the line as written: that costs SymPy's caches)
            line = reader.as_written(last)
            line_top, line_bottom = sympy.fraction(line, exact=True)
            if not line_bottom.free_symbols:
                return True
            if _is_sum(bottom) and not _is_sum(line_bottom):
                return False  # Σ_j e^{s_j - m} asked for, e^{-m} Σ_j e^{s_j} written: not moved in
            top, line_top = top.doit(), line_top.doit()
            quotient = line_top / top
            # Few quotients, each met again for many lines: simplify (tens of ms) once each.
            ratio = reader.remember(("simplified", quotient), lambda: sympy.simplify(quotient))
            if ratio != 0 and not ratio.free_symbols & written.free_symbols:
                return True  # scaled by a number, or by what the asked fraction does not use
            if _rationalised(bottom, line_bottom, ratio):
                return True  # k_t √d_k/d_k for k_t/√d_k: the same fraction, its root moved up
            return reader.same(reader.value_of(line_top), reader.value_of(top))
        except (Exception, RecursionError):  # a form the comparison cannot take apart: no verdict
            return True

    def _not_there_yet(self, target: Side, last: Side) -> str:
        reader = self.reader
        if reader.is_closed(target) and not reader.is_closed(last):
            return CLOSED_FORM
        unfinished = _unfinished(last, target)
        if unfinished:
            return "right so far, but not yet this step: " + UNFINISHED[min(unfinished)]
        return (
            "right so far, but not yet this step: it asks for "
            f"{target.shown}, which your line has not reached"
        )


def _new_index(reader: StepReader, left: Side, right: Side) -> list[str]:
    """The indices `right` has free inside a Σ that `left` does not have free at all: an index
    that came from nowhere (Σ_a E[q_a] E[k_b] for Σ_a E[q_a k_a]). An index may leave a side
    (E[q_a^4] = 3) or stand for any one component outside a sum (d_k Var(q_a k_a))."""
    inside = reader.free_in_sums(right.expr)
    return sorted(inside - reader.free_indices(left.expr)) if inside else []


def _index_message(reader: StepReader, left: Side, right: Side) -> str:
    """Why an `=` whose right side has a new free index inside a Σ does not hold: the value
    may agree, the quantity is another one."""
    extra = ", ".join(_new_index(reader, left, right))
    return (
        f"the index {extra} is free inside a Σ in {right.shown}, but not in {left.shown}: an "
        "index outside its own Σ must be one the line before has free too (did you mix up the "
        "letters of the sum?)"
    )


def _rationalised(bottom: Any, line_bottom: Any, ratio: Any) -> bool:
    """Whether a fraction is the asked one with its denominator made free of roots: top and
    bottom multiplied by a root (√d_k) the asked denominator has and the written one has not."""
    import sympy

    def roots(expr: Any) -> set[Any]:
        return {
            power
            for power in sympy.preorder_traversal(expr)
            if isinstance(power, sympy.Pow) and not power.exp.is_integer and power.free_symbols
        }

    if not (isinstance(ratio, sympy.Pow) and ratio in roots(bottom)) or roots(line_bottom):
        return False
    return bool(sympy.simplify(line_bottom - sympy.expand(bottom.doit() * ratio)) == 0)


def _product_of_variances(side: Side) -> bool:
    """Whether a side writes Var(XY) as Var(X) Var(Y) (independent factors, means 0)."""
    return PRODUCT_OF_VARIANCES in side.rules


def _rules_of_link(left: Side, right: Side) -> set[str]:
    """The rules one `=` relied on: those reducing the left side that the right side skips,
    and Var(XY) = Var(X) Var(Y) when the right side is the one that takes it up."""
    rules = set(left.rules - right.rules)
    if _product_of_variances(right) and not _product_of_variances(left):
        rules.add(PRODUCT_OF_VARIANCES)
    written_out = "Var" in _calls(left.expr) and _calls(right.expr) & {"Var", "E"} == {"E"}
    if written_out:  # Var(X) written out as E[X²] - E[X]²
        rules = (rules - {"variance of a sum of independent terms"}) | {"Var(X) = E[X²] - E[X]²"}
    return rules


def _calls(expr: Any) -> set[str]:
    import sympy

    return {str(f.func) for f in expr.atoms(sympy.Function)}


def _is_sum(expr: Any) -> bool:
    import sympy

    return isinstance(expr, sympy.Function) and str(expr.func) == "sum"


def _unfinished(last: Side, target: Side) -> set[str]:
    """The forms `last` still has that the step asked to remove.

    The forms come in the order a derivation removes them (`UNFINISHED`). A form the target no
    longer has is fine when the line has also removed an earlier form the target still has:
    then the line went further (Var written out as E[...], a sum worked out), it did not stop
    short.
    """
    wanted, have = form_of(target.expr), form_of(last.expr)
    ahead = wanted - have
    return {form for form in have - wanted if not any(done < form for done in ahead)}


CLOSED_FORM = "right so far; now work it out to a closed form (no E, Var, Σ or ∂ left)"
# What a line still has to do when it keeps a form the step asked to remove (most basic first).
UNFINISHED = {
    "1 operator of a sum": "move E or Var inside the sum (E and Σ are both linear)",
    "2 derivative": "work out the derivative",
    "3 variance": "write the variance out as E[X²] − E[X]²",
    "5 expectation": "put in the values of the moments",
    "6 sum": "work out the sum",
}


def form_of(expr: Any) -> set[str]:
    """Which forms a side still has: E or Var of a whole sum, a Var, a derivative, a Σ."""
    import sympy

    from engine.checking.derivation.notation import name_of, read_marker

    forms: set[str] = set()
    for node in sympy.preorder_traversal(expr):
        name = str(getattr(node, "func", ""))
        if isinstance(node, sympy.Function) and name in {"E", "Var"}:
            forms.add("3 variance" if name == "Var" else "5 expectation")
            inner = node.args[0]
            inner_names = [read_marker(name_of(s)) for s in inner.free_symbols]
            if any(str(f.func) == "sum" for f in inner.atoms(sympy.Function)) or any(
                marker is not None and marker[0] == "dot" for marker in inner_names
            ):
                forms.add("1 operator of a sum")
        elif isinstance(node, sympy.Function) and name == "sum":
            forms.add("6 sum")
        elif isinstance(node, sympy.Symbol):
            marker = read_marker(node.name)
            if marker is not None and marker[0] == "derivative":
                forms.add("2 derivative")
            elif marker is not None and marker[0] == "dot":
                forms.add("1 operator of a sum")
    return forms


def restates(before: Side, side: Side) -> bool:
    """Whether `side` is the line `before` again, up to the names of the summation indices."""
    return _canonical(side.expr) == _canonical(before.expr)


def _same_text(before: Side, side: Side) -> bool:
    """Whether two sides are written alike (SymPy may have made two forms one: e^a e^b)."""
    return "".join(before.text.split()) == "".join(side.text.split())


@functools.lru_cache(maxsize=CANONICAL_KEPT)
def _canonical(expr: Any) -> Any:
    """`expr` with its summation indices renamed in order (remembered: the line a step starts
    from is compared with every line written after it)."""
    import sympy

    from engine.checking.derivation.notation import name_of, sum_marker

    bound = sorted(
        name_of(s)[len(sum_marker("")) :]
        for s in expr.free_symbols
        if name_of(s).startswith("zzsum_")
    )
    renames = {}
    for number, index in enumerate(bound):
        for symbol in expr.free_symbols:
            name = name_of(symbol)
            if name == sum_marker(index) or name.endswith(f"_{index}"):
                stem = name[: -len(index)]
                renames[symbol] = sympy.Symbol(f"{stem}#{number}")
    return expr.xreplace(renames)
