"""Check one step of a derivation against the line before it and the step the drill expects.

A step is the next right-hand side (`= 0`, or a bare expression), an equation `lhs = rhs`, or a
chain `a = b = c`. Every side is read with the safe reader (after `derivation_notation` has
rewritten E[...], Σ_a, q·k and ∂p_i/∂s_j) and reduced to a canonical value under the item's
`Assumptions` (`expectation`): E and Var of the random vectors become polynomials in the
dimension, and sums over indices of plain quantities (Σ_j e^{s_j}) stay sums. Two sides are equal
when SymPy shows it or they agree at random points (`expression.equivalent`); sums over an index,
derivatives and defined quantities such as p_i are compared after writing the sums out for a
small number of terms and every choice of the free indices. Nothing typed is ever executed, and
every failure becomes a verdict with a message for the learner.

This module is the public face; the work is done in concept modules:

- `derivation_step`: the data (`Assumptions`, `Side`, `StepVerdict`, `BrokenLink`, `split_sides`);
- `derivation_reader`: reading and showing sides (`StepReader`);
- `derivation_comparison`: whether two sides are equal, writing sums out;
- `derivation_judging`: the verdict on a line (`judge`);
- `derivation_messages`: what the learner is told.

`check_step` here runs in the calling process, with no time bound: the drills call
`engine.checking.bounded_derivation.check_step`, which runs this in the checking worker.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.checking.derivation_comparison import CONCRETE_SIZES, MAX_INDEX_CHOICES
from engine.checking.derivation_indices import with_indices_used
from engine.checking.derivation_judging import judge
from engine.checking.derivation_reader import MAX_SIDES, StepReader
from engine.checking.derivation_step import (
    Assumptions,
    BrokenLink,
    Side,
    StepVerdict,
    split_sides,
    unchecked,
)
from engine.checking.random_polynomial import CannotEvaluate
from engine.errors import AnswerError, BankError

__all__ = [
    "CONCRETE_SIZES",
    "MAX_INDEX_CHOICES",
    "MAX_SIDES",
    "Assumptions",
    "BrokenLink",
    "Side",
    "StepReader",
    "StepVerdict",
    "check_step",
    "judge",
    "split_sides",
]


def check_step(
    previous: str | None,
    step: str,
    *,
    expected: str | None = None,
    assumptions: Assumptions | None = None,
    mistakes: Sequence[tuple[str, str]] = (),
) -> StepVerdict:
    """Check `step` as the line after `previous` (None for the first line).

    `expected` is the step the drill has in mind (its value, or a form such as
    `Σ_a E[q_a] E[k_a]`); `mistakes` pairs a known wrong value with what to tell the learner.
    The learner's text never raises; unreadable author text (`previous`, `expected`, mistakes,
    definitions) raises BankError.
    """
    texts = [text for text in (previous, step, expected) if text is not None]
    reader = StepReader(with_indices_used(assumptions or Assumptions(), texts))
    try:
        before = reader.author_side(previous) if previous is not None else None
        target = reader.author_side(expected) if expected is not None else None
        known = [(reader.author_side(text), message) for text, message in mistakes]
    except (AnswerError, CannotEvaluate) as error:
        raise BankError([f"a derivation step cannot be read: {error}"]) from None
    try:
        sides = reader.learner_sides(step, continues=before is not None)
    except AnswerError as error:
        return StepVerdict(readable=False, valid=False, reaches_expected=False, message=str(error))
    except CannotEvaluate as error:
        return unchecked(f"could not check this step: {error}")
    try:
        return judge(reader, before, sides, target, known, continuation=step.strip()[:1] == "=")
    except CannotEvaluate as error:
        return unchecked(
            f"could not check this step: {error}",
            interpreted_as=" = ".join(side.shown for side in sides),
        )
    except (Exception, RecursionError):  # a last line of defence: never a traceback
        return unchecked("could not check this step; try writing it more simply")
