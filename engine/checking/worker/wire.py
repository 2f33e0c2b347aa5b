"""What crosses the checking worker's pipe, as plain JSON: items, verdicts, derivation steps.

A `grade` or `check_bank` request carries an item (`ItemRequest`); a `grade` reply carries a
`Verdict` and a `check_bank` reply a list of problems; a `check_step` request carries the step's
`Assumptions` and its reply a `StepVerdict` (with its `BrokenLink`s); a failure carries an error
code (`Failure`). All cross the process boundary as JSON objects of strings, numbers, booleans
and lists, never as pickled objects. Every one is read through a strict pydantic model of the
wire format (no field is checked by hand): every field has exactly its type (no "1" for 1, no 1
for true), unknown fields are refused, and anything else raises ValueError (pydantic's
ValidationError is one), so a confused or hostile message can never turn into a verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.checking.derivation.step import Assumptions, BrokenLink, StepVerdict
from engine.verdict import Verdict

Data = dict[str, Any]

_NAME_LISTS = (
    "normal_vectors",
    "vector_indices",
    "indices",
    "symbols",
    "positive",
    "integer",
    "matrices",
)


class _Wire(BaseModel):
    """A JSON object as it must arrive: exact types, and no field the reader does not know."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class _VerdictWire(_Wire):
    correct: bool
    valid: bool
    interpreted_as: str
    feedback: str
    score: float  # an integer too (JSON has one kind of number), never a boolean

    def read(self) -> Verdict:
        return Verdict(**self.model_dump())  # ValueError if correct but unreadable


class _AssumptionsWire(_Wire):
    normal_vectors: list[str] = []
    dimension: str = "d_k"
    vector_indices: list[str] = []
    indices: list[str] = []
    count: str = "n"
    symbols: list[str] = []
    positive: list[str] = []
    integer: list[str] = []
    matrices: list[str] = []
    aliases: dict[str, list[str]] = {}
    definitions: dict[str, str] = {}

    def read(self) -> Assumptions:
        return Assumptions(
            **{name: tuple(getattr(self, name)) for name in _NAME_LISTS},
            dimension=self.dimension,
            count=self.count,
            aliases={name: tuple(spellings) for name, spellings in self.aliases.items()},
            definitions=dict(self.definitions),
        )


class _BrokenLinkWire(_Wire):
    left: str
    right: str
    left_value: str
    right_value: str
    from_previous_line: bool = False


class _StepVerdictWire(_Wire):
    readable: bool
    valid: bool
    reaches_expected: bool
    interpreted_as: str = ""
    message: str = ""
    broken: list[_BrokenLinkWire] = []
    value: str = ""
    last_side: str = ""
    rules: list[str] = []
    checked: bool = True
    closed: bool = False

    def read(self) -> StepVerdict:
        if self.valid and not self.readable:
            raise ValueError("an unreadable line cannot be valid")
        fields = {name: getattr(self, name) for name in type(self).model_fields}
        fields["broken"] = tuple(BrokenLink(**link.model_dump()) for link in self.broken)
        fields["rules"] = tuple(self.rules)
        return StepVerdict(**fields)


Mistake = Annotated[list[str], Field(min_length=2, max_length=2)]


class _StepRequestWire(_Wire):
    # The request's own envelope (`op`, `id`) is the worker's business, not this reader's.
    model_config = ConfigDict(extra="ignore")

    previous: str | None = None
    step: str
    expected: str | None = None
    assumptions: _AssumptionsWire = _AssumptionsWire()
    mistakes: list[Mistake] = []  # pairs of value and message


class _ItemRequestWire(_Wire):
    model_config = ConfigDict(extra="ignore")  # the envelope (`op`, `id`) is the worker's

    kind: str
    item: dict[str, Any]  # the item's model_dump: its kind's model reads it


class _GradeRequestWire(_ItemRequestWire):
    answer: str


class _ProblemsWire(_Wire):
    model_config = ConfigDict(extra="ignore")  # the reply's `id`

    problems: list[str]


ErrorCode = Literal["answer", "bank", "value", "memory", "internal", "protocol"]


class _FailureWire(_Wire):
    model_config = ConfigDict(extra="ignore")  # the reply's `id`

    error: ErrorCode
    message: str = ""
    problems: list[str] | None = None  # a `bank` failure's


_W = TypeVar("_W", bound=_Wire)


def _read(model: type[_W], data: object, what: str) -> _W:
    """`data` as `model`, or one short ValueError saying where and what is wrong."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{what}{f' {where}' if where else ''}: {first['msg']}") from None


def assumptions_to_data(assumptions: Assumptions) -> Data:
    return {
        **{name: list(getattr(assumptions, name)) for name in _NAME_LISTS},
        "dimension": assumptions.dimension,
        "count": assumptions.count,
        "aliases": {name: list(spellings) for name, spellings in assumptions.aliases.items()},
        "definitions": dict(assumptions.definitions),
    }


@dataclass(frozen=True)
class StepRequest:
    """The arguments of one `check_step` call."""

    previous: str | None
    step: str
    expected: str | None
    assumptions: Assumptions
    mistakes: tuple[tuple[str, str], ...]


def request_to_data(request: StepRequest) -> Data:
    """The `check_step` request for the worker (without its `id`)."""
    return {
        "op": "check_step",
        "previous": request.previous,
        "step": request.step,
        "expected": request.expected,
        "assumptions": assumptions_to_data(request.assumptions),
        "mistakes": [list(pair) for pair in request.mistakes],
    }


def request_from_data(data: Mapping[str, Any]) -> StepRequest:
    """The call a `check_step` request asks for; ValueError if it is malformed."""
    wire = _read(_StepRequestWire, data, "request")
    return StepRequest(
        previous=wire.previous,
        step=wire.step,
        expected=wire.expected,
        assumptions=wire.assumptions.read(),
        mistakes=tuple((value, message) for value, message in wire.mistakes),
    )


@dataclass(frozen=True)
class ItemRequest:
    """What a `grade` or `check_bank` request is about: an item of `kind`, as `item` (its
    model_dump), and for `grade` the learner's `answer`."""

    kind: str
    item: dict[str, Any]
    answer: str | None = None


def item_request_from_data(data: Mapping[str, Any], *, with_answer: bool) -> ItemRequest:
    """The item (and, `with_answer`, the answer) a request names; ValueError if malformed."""
    if with_answer:
        graded = _read(_GradeRequestWire, data, "request")
        return ItemRequest(kind=graded.kind, item=graded.item, answer=graded.answer)
    wire = _read(_ItemRequestWire, data, "request")
    return ItemRequest(kind=wire.kind, item=wire.item)


@dataclass(frozen=True)
class Failure:
    """A reply that reports a failure: its error code, message and (for `bank`) problems."""

    error: ErrorCode
    message: str
    problems: tuple[str, ...] | None


def failure_from_data(data: object) -> Failure:
    """The failure a reply with an `error` reports; ValueError unless it is well formed."""
    wire = _read(_FailureWire, data, "failure")
    problems = None if wire.problems is None else tuple(wire.problems)
    return Failure(error=wire.error, message=wire.message, problems=problems)


def problems_from_data(data: object) -> list[str]:
    """The problems a `check_bank` reply lists; ValueError unless they are a list of strings."""
    return list(_read(_ProblemsWire, data, "reply").problems)


def verdict_from_data(data: object) -> Verdict:
    """The Verdict a `grade` reply describes; ValueError unless every field has the right type."""
    return _read(_VerdictWire, data, "verdict").read()


def step_verdict_to_data(verdict: StepVerdict) -> Data:
    return dataclasses.asdict(verdict)


def step_verdict_from_data(data: object) -> StepVerdict:
    """The StepVerdict a reply describes; ValueError unless every field has the right type."""
    return _read(_StepVerdictWire, data, "verdict").read()
