"""What crosses the checking worker's pipe, as plain JSON: verdicts, and derivation steps.

A `grade` reply carries a `Verdict`; a `check_step` request carries the step's `Assumptions` and
its reply a `StepVerdict` (with its `BrokenLink`s). All cross the process boundary as JSON
objects of strings, numbers, booleans and lists, never as pickled objects; reading them back
checks every field's type and raises ValueError for anything else, so a confused or hostile
reply can never turn into a verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def assumptions_to_data(assumptions: Assumptions) -> Data:
    return {
        **{name: list(getattr(assumptions, name)) for name in _NAME_LISTS},
        "dimension": assumptions.dimension,
        "count": assumptions.count,
        "aliases": {name: list(spellings) for name, spellings in assumptions.aliases.items()},
        "definitions": dict(assumptions.definitions),
    }


def assumptions_from_data(data: object) -> Assumptions:
    fields = _object(data, "assumptions", {f.name for f in dataclasses.fields(Assumptions)})
    aliases = _object(fields.get("aliases", {}), "aliases")
    definitions = _object(fields.get("definitions", {}), "definitions")
    return Assumptions(
        **{name: _strings(fields.get(name, []), name) for name in _NAME_LISTS},
        dimension=_string(fields.get("dimension", "d_k"), "dimension"),
        count=_string(fields.get("count", "n"), "count"),
        aliases={str(name): _strings(spellings, name) for name, spellings in aliases.items()},
        definitions={str(name): _string(text, name) for name, text in definitions.items()},
    )


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
    mistakes = data.get("mistakes", [])
    if not isinstance(mistakes, list):
        raise ValueError("mistakes must be a list of pairs")
    pairs = []
    for pair in mistakes:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError("each mistake is a pair of value and message")
        pairs.append((_string(pair[0], "a mistake"), _string(pair[1], "a mistake's message")))
    return StepRequest(
        previous=_optional_string(data.get("previous"), "previous"),
        step=_string(data.get("step"), "step"),
        expected=_optional_string(data.get("expected"), "expected"),
        assumptions=assumptions_from_data(data.get("assumptions", {})),
        mistakes=tuple(pairs),
    )


def verdict_from_data(data: object) -> Verdict:
    """The Verdict a `grade` reply describes; ValueError unless every field has the right type."""
    fields = _object(data, "verdict")
    score = fields.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        raise ValueError("score must be a number")
    return Verdict(
        correct=_flag(fields.get("correct"), "correct"),
        valid=_flag(fields.get("valid"), "valid"),
        interpreted_as=_string(fields.get("interpreted_as"), "interpreted_as"),
        feedback=_string(fields.get("feedback"), "feedback"),
        score=float(score),
    )


def step_verdict_to_data(verdict: StepVerdict) -> Data:
    return dataclasses.asdict(verdict)


def step_verdict_from_data(data: object) -> StepVerdict:
    """The StepVerdict a reply describes; ValueError unless every field has the right type."""
    fields = _object(data, "verdict", {f.name for f in dataclasses.fields(StepVerdict)})
    broken = fields.get("broken", [])
    if not isinstance(broken, list):
        raise ValueError("broken must be a list")
    verdict = StepVerdict(
        readable=_flag(fields.get("readable"), "readable"),
        valid=_flag(fields.get("valid"), "valid"),
        reaches_expected=_flag(fields.get("reaches_expected"), "reaches_expected"),
        interpreted_as=_string(fields.get("interpreted_as", ""), "interpreted_as"),
        message=_string(fields.get("message", ""), "message"),
        broken=tuple(_link(link) for link in broken),
        value=_string(fields.get("value", ""), "value"),
        last_side=_string(fields.get("last_side", ""), "last_side"),
        rules=_strings(fields.get("rules", []), "rules"),
        checked=_flag(fields.get("checked", True), "checked"),
    )
    if verdict.valid and not verdict.readable:
        raise ValueError("an unreadable line cannot be valid")
    return verdict


def _link(data: object) -> BrokenLink:
    fields = _object(data, "broken link", {f.name for f in dataclasses.fields(BrokenLink)})
    return BrokenLink(
        left=_string(fields.get("left"), "left"),
        right=_string(fields.get("right"), "right"),
        left_value=_string(fields.get("left_value"), "left_value"),
        right_value=_string(fields.get("right_value"), "right_value"),
        from_previous_line=_flag(fields.get("from_previous_line", False), "from_previous_line"),
    )


def _object(data: object, what: str, allowed: set[str] | None = None) -> Mapping[str, Any]:
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        raise ValueError(f"{what} must be a JSON object")
    unknown = set(data) - allowed if allowed is not None else set()
    if unknown:
        raise ValueError(f"{what} has unknown fields: {', '.join(sorted(unknown))}")
    return data


def _string(value: object, what: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    return value


def _optional_string(value: object, what: str) -> str | None:
    return None if value is None else _string(value, what)


def _strings(value: object, what: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(_string(item, what) for item in value)


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false")
    return value
