"""Judging one line of a derivation: which `=` hold, and whether it reaches the step asked for.

`judge` walks the chain previous line = side = side ..., collects the links that do not hold
(`BrokenLink`) and the rules the ones that hold relied on, then asks whether the last side is the
expected step, in closed form when the expected step is closed. The words it says come from
`derivation_messages`.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.checking.derivation_messages import (
    NOTES,
    correct_message,
    diagnose,
    explain,
    known_mistake,
)
from engine.checking.derivation_reader import StepReader
from engine.checking.derivation_step import BrokenLink, Side, StepVerdict


def judge(
    reader: StepReader,
    before: Side | None,
    sides: list[Side],
    target: Side | None,
    known: list[tuple[Side, str]],
    *,
    continuation: bool = False,
) -> StepVerdict:
    """The verdict on `sides` (one line) after the line `before`, aiming at `target`."""
    chain = ([before] if before is not None else []) + sides
    broken: list[BrokenLink] = []
    message = ""
    rules: set[str] = set()
    for position, (left, right) in enumerate(itertools.pairwise(chain)):
        from_previous = before is not None and position == 0
        if reader.same(left.value, right.value):
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
        message = message or explain(reader, left, right, from_previous, known)
    last = sides[-1]
    reaches, not_there = _reaches(reader, before, last, target, known)
    if not broken:
        message = not_there if not reaches else correct_message(reader, rules)
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
    )


def _rules_of_link(left: Side, right: Side) -> set[str]:
    """The rules one `=` relied on: those reducing the left side that the right side skips."""
    rules = set(left.rules - right.rules)
    written_out = "Var" in _calls(left.expr) and _calls(right.expr) & {"Var", "E"} == {"E"}
    if written_out:  # Var(X) written out as E[X²] - E[X]²
        rules = (rules - {"variance of a sum of independent terms"}) | {"Var(X) = E[X²] - E[X]²"}
    return rules


def _calls(expr: Any) -> set[str]:
    import sympy

    return {str(f.func) for f in expr.atoms(sympy.Function)}


def _reaches(
    reader: StepReader,
    before: Side | None,
    last: Side,
    target: Side | None,
    known: list[tuple[Side, str]],
) -> tuple[bool, str]:
    if target is None:
        return True, ""
    if not reader.same(last.value, target.value):
        hint = diagnose(reader, target, last.value, known) if not reader.is_closed(target) else ""
        hint = hint or known_mistake(reader, last.value, known)
        return False, (
            f"your line gives {reader.show_value(last.value)}, which is not what this step "
            "asks for" + (f"; {hint}" if hint else "")
        )
    if reader.is_closed(target) and not reader.is_closed(last):
        return False, "right so far; now work it out to a closed form (no E, Var, Σ or ∂ left)"
    if before is not None and last.expr == before.expr and target.expr != before.expr:
        return False, "this repeats the previous line; write the next step"
    return True, ""
