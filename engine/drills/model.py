"""The drill file format (`format_version: 1`): a set's derivation drills and their steps.

A step is judged in one of three ways, named by its `check` field:

- `follows` (the default): the learner's line must follow from the last accepted line and reach
  the step's expected expression (`check_step(previous, line, expected=...)`).
- `value`: the line is judged on its own and must reach the expected expression. For steps the
  checker cannot link to the line before, such as taking a limit or applying the chain rule.
- `self-rated`: the learner writes the step, compares it with the expected line and rates it.
  For steps no checker can judge (an argument in words).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StringConstraints

from engine.bank.file_header import FileHeader, StrictModel
from engine.checking.derivation import Assumptions
from engine.checking.reading.safe_ast import within_float_range
from engine.drills import CARD_PREFIX

DrillId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,59}$")]
Text = Annotated[str, StringConstraints(min_length=1, max_length=2000)]
# An expression of the drill's: a number in it beyond float range is refused when the file is
# read (the checker would refuse it only once the learner had answered).
Line = Annotated[
    str, StringConstraints(min_length=1, max_length=500), AfterValidator(within_float_range)
]
StepCheck = Literal["follows", "value", "self-rated"]


class Mistake(StrictModel):
    """A known wrong value for a step and what to tell a learner who reaches it."""

    value: Line
    message: Text


class AssumptionsSpec(StrictModel):
    """What the drill may assume: `stated` is shown to the learner, the rest feeds the checker.

    The checker fields map one to one onto `engine.checking.derivation.Assumptions`.
    """

    stated: list[Text] = Field(default_factory=list)
    normal_vectors: list[str] = Field(default_factory=list)
    dimension: str = "d_k"
    vector_indices: list[str] = Field(default_factory=lambda: ["a", "b"])
    indices: list[str] = Field(default_factory=list)
    count: str = "n"
    symbols: list[str] = Field(default_factory=list)
    positive: list[str] = Field(default_factory=list)
    integer: list[str] = Field(default_factory=list)
    matrices: list[str] = Field(default_factory=list)
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    definitions: dict[str, Annotated[str, AfterValidator(within_float_range)]] = Field(
        default_factory=dict
    )

    def for_checker(self) -> Assumptions:
        return Assumptions(
            normal_vectors=tuple(self.normal_vectors),
            dimension=self.dimension,
            vector_indices=tuple(self.vector_indices),
            indices=tuple(self.indices),
            count=self.count,
            # A matrix is a symbol too; the checker only needs to hear that it does not commute.
            symbols=tuple(dict.fromkeys([*self.symbols, *self.matrices])),
            positive=tuple(self.positive),
            integer=tuple(self.integer),
            matrices=tuple(self.matrices),
            aliases={name: tuple(spellings) for name, spellings in self.aliases.items()},
            definitions=dict(self.definitions),
        )


class DrillStep(StrictModel):
    """One line of the derivation: what to do, the expected line, a hint and what it shows."""

    ask: Text
    expect: Line
    hint: Text
    explain: Text | None = None
    check: StepCheck = "follows"
    # The learner may start the line with `NAME =` when the step solves for NAME (`d_k = 40`).
    solve_for: str | None = None
    # The values the question gives for this step (`d_k: "512"` for "at d_k = 512"): a line may
    # go through the general formula and put them in (`√d_k = √512`), and must end with them in.
    given: dict[str, Line] = Field(default_factory=dict)
    mistakes: list[Mistake] = Field(default_factory=list)

    @property
    def checked(self) -> bool:
        return self.check != "self-rated"


class Drill(StrictModel):
    """One derivation: from `start` (the first line, if the first step continues it) to `target`."""

    id: DrillId
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    tags: list[str] = Field(default_factory=list)
    goal: Text
    start: Line | None = None
    assumptions: AssumptionsSpec = Field(default_factory=AssumptionsSpec)
    steps: Annotated[list[DrillStep], Field(min_length=1, max_length=12)]
    target: Text
    line: int = 0  # where the drill starts in its file, filled in by the loader

    @property
    def card_id(self) -> str:
        return CARD_PREFIX + self.id


class DrillFile(FileHeader):
    """A whole drill file, e.g. `drills/15.yaml`."""

    drills: list[object]
