"""Check one step of a derivation against the line before it and the step the drill expects.

A step is the next right-hand side (`= 0`, or a bare expression), an equation `lhs = rhs`, or a
chain `a = b = c`. Every side is read with the safe reader (after `notation` has
rewritten E[...], Σ_a, q·k and ∂p_i/∂s_j) and reduced to a canonical value under the item's
`Assumptions` (`expectation`): E and Var of the random vectors become polynomials in the
dimension, and sums over indices of plain quantities (Σ_j e^{s_j}) stay sums. Two sides are equal
when SymPy shows it or they agree at random points (`expression.equivalent`); sums over an index,
derivatives and defined quantities such as p_i are compared after writing the sums out for a
small number of terms and every choice of the free indices. Nothing typed is ever executed, and
every failure becomes a verdict with a message for the learner.

The modules, one concept each:

- `step`: the data (`Assumptions`, `Side`, `StepVerdict`, `BrokenLink`, `split_sides`);
- `notation`: Σ_a, E[...], q·k and ∂p_i/∂s_j rewritten for the safe reader; `indices`: the
  index letters a line may use;
- `random_polynomial` and `expectation`: E and Var reduced with the moments left unknown;
- `reader`: reading, comparing and showing sides (`StepReader`: whether two sides are equal,
  or one follows from the other);
- `judging`: the verdict on a line (`Judge`); `messages` (`Feedback`), `rules` (`WrongRules`)
  and `substitution` (`Substitutions`): what the learner is told, each with one reader;
- `check`: `check_step` in this process; `bounded`: the same in the checking worker, with a
  hard time bound (what the drills use).
"""

from engine.checking.derivation.check import check_step
from engine.checking.derivation.step import (
    Assumptions,
    BrokenLink,
    Side,
    StepVerdict,
    split_sides,
    unchecked,
)

__all__ = [
    "Assumptions",
    "BrokenLink",
    "Side",
    "StepVerdict",
    "check_step",
    "split_sides",
    "unchecked",
]
