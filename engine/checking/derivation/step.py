"""What a derivation step is made of and what the checker says about it.

`Assumptions` is what a derivation may assume (the random vectors, the indices, the defined
quantities), `split_sides` cuts a typed line at its `=` signs, `Side` is one side read and
reduced, and `StepVerdict` (with its `BrokenLink`s) is the checker's conclusion about one line.
These are plain data: `worker_wire` carries them across the checking worker's pipe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.checking.reading.brackets import top_level
from engine.errors import AnswerError
from engine.verdict import Verdict

if TYPE_CHECKING:
    from engine.checking.derivation.random_polynomial import RandomPolynomial


@dataclass(frozen=True)
class Assumptions:
    """What a derivation may assume, and the names it uses.

    `normal_vectors` are independent vectors whose `dimension` components are i.i.d. N(0, 1),
    written with a `vector_indices` subscript (q_a, k_b). Other indices (`indices`, such as the
    softmax positions i, j, k) run over 1..`count`; a symbol such as `s_j` in `symbols` declares
    the whole family s_i, s_j, s_k. `definitions` give names a meaning: `X: q·k`, or for a family
    `p_i: e^{s_i}/Σ_k e^{s_k}` (which also defines p_j and p_k).
    """

    normal_vectors: tuple[str, ...] = ()
    dimension: str = "d_k"
    vector_indices: tuple[str, ...] = ("a", "b")
    indices: tuple[str, ...] = ()
    count: str = "n"
    symbols: tuple[str, ...] = ()
    positive: tuple[str, ...] = ()
    integer: tuple[str, ...] = ()
    matrices: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    definitions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BrokenLink:
    """One `=` that does not hold: the two sides as read and the values they reduce to."""

    left: str
    right: str
    left_value: str
    right_value: str
    from_previous_line: bool = False


@dataclass(frozen=True)
class StepVerdict:
    """What `check_step` concluded about one line.

    `valid`: every `=` holds and the line continues the previous one. `reaches_expected`: its
    last side equals the expected step (in closed form when the expected step is closed; True
    when nothing is expected). `checked` is False for a readable line the checker cannot reduce
    (or could not reduce in time). `last_side` is the text to pass as `previous` for the next
    line; `closed` says whether that side is a closed form (no E, Var, Σ, ∂ or random component).
    """

    readable: bool
    valid: bool
    reaches_expected: bool
    interpreted_as: str = ""
    message: str = ""
    broken: tuple[BrokenLink, ...] = ()
    value: str = ""
    last_side: str = ""
    rules: tuple[str, ...] = ()
    checked: bool = True
    closed: bool = False

    @property
    def correct(self) -> bool:
        return self.valid and self.reaches_expected

    def to_verdict(self) -> Verdict:
        return Verdict(
            correct=self.correct,
            valid=self.readable,
            interpreted_as=self.interpreted_as,
            feedback=self.message,
            score=1.0 if self.correct else 0.0,
        )


def unchecked(message: str, *, interpreted_as: str = "") -> StepVerdict:
    """The verdict on a readable line the checker could not judge: never correct."""
    return StepVerdict(
        readable=True,
        valid=False,
        reaches_expected=False,
        interpreted_as=interpreted_as,
        message=message,
        checked=False,
    )


@dataclass(frozen=True)
class Side:
    """One side of a step: its text, its expression, its reduced value and the rules used."""

    text: str
    expr: Any
    value: RandomPolynomial
    shown: str
    rules: frozenset[str]


def split_sides(text: str) -> list[str]:
    """Split a line at every `=` outside brackets; `==`, `<=` and the like are refused."""
    sides, start = [], 0
    for equals in top_level("=", text):
        position = equals.start()
        before = text[position - 1] if position else ""
        after = text[position + 1 : position + 2]
        if before in {"<", ">", "!", "="} or after == "=":
            raise AnswerError("could not read this: join the sides of a step with `=` only")
        sides.append(text[start:position])
        start = position + 1
    sides.append(text[start:])
    return sides
