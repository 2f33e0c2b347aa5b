"""Typed-answer cards: numbers, shapes and symbolic expressions, graded by `engine.checking`.

Cards are pure: `grade` and `check_bank` run the checking in this process. What bounds the
time any SymPy step may take is the checker the caller passes around (a session, `check`, lint:
`engine.checking.worker.bounded.BoundedChecker` runs the same methods in a warm worker process). The
checking modules import SymPy, so they are imported inside those methods, never at start-up.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from engine.cards.base import Item, Text, register_kind
from engine.checking.equivalence.domain import range_problem
from engine.checking.reading.safe_ast import within_float_range
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict, graded_as_offered

SymbolName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_{}]*$")]
# An answer of the author's: a number in it beyond float range is refused when the bank is read
# (the checker would refuse it only once the learner had answered).
AuthorAnswer = Annotated[str, AfterValidator(within_float_range)]
Aliases = dict[SymbolName, tuple[Annotated[str, StringConstraints(min_length=1)], ...]]


class Mistake(BaseModel):
    """A known wrong answer and what to tell the learner who gives it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: Annotated[Text, AfterValidator(within_float_range)]
    message: Text

    @field_validator("answer", mode="before")
    @classmethod
    def _number_as_text(cls, value: object) -> object:
        return (
            str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
        )


class Precision(BaseModel):
    """How a number answer must be rounded: `{decimals: 3}` or `{significant: 2}`.

    The prompt states it (the phrase is added to the prompt from this field) and the check
    applies it: the true value rounded this way is the answer, more digits are fine.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    decimals: Annotated[int, Field(ge=0, le=12)] | None = None
    significant: Annotated[int, Field(ge=1, le=15)] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Precision:
        if (self.decimals is None) == (self.significant is None):
            raise ValueError("precision gives either decimals or significant, not both")
        return self

    def sentence(self) -> str:
        if self.decimals == 0:
            return "Round to the nearest whole number (more digits are fine)."
        if self.decimals is not None:
            places = "place" if self.decimals == 1 else "places"
            return f"Round to {self.decimals} decimal {places} (more digits are fine)."
        figures = "figure" if self.significant == 1 else "figures"
        return f"Round to {self.significant} significant {figures} (more digits are fine)."

    def for_checking(self) -> Any:
        from engine.checking import Precision as CheckingPrecision

        return CheckingPrecision(decimals=self.decimals, significant=self.significant)


def with_precision_sentence(prompt: str, precision: Precision | None) -> str:
    """The prompt with the precision sentence at its end (once)."""
    if precision is None or prompt.rstrip().endswith(precision.sentence()):
        return prompt
    return f"{prompt.rstrip()}\n{precision.sentence()}\n"


_PRECISION_IN_PROSE = re.compile(
    r"\b(?:\d+|one|two|three|four)\s+(?:or\s+\d+\s+)?(?:decimal|significant)|nearest whole",
    re.IGNORECASE,
)


def precision_prose_problem(prompt: str, precision: Precision | None) -> list[str]:
    """Lint: a prompt that states a precision in words must give it as `precision:` too."""
    if precision is None and _PRECISION_IN_PROSE.search(prompt):
        return ["the prompt states a precision in words: give it as `precision:` instead"]
    return []


class TypedItem(Item):
    """Common fields of typed kinds: symbol spellings and known mistakes."""

    # Alternative spellings of symbols, e.g. {d_k: [d, dk]}. The loader merges the bank's own
    # `symbols` under the item's, so an item only lists what is special to it.
    symbols: Aliases = Field(default_factory=dict)
    mistakes: tuple[Mistake, ...] = ()

    def grade(self, answer: str) -> Verdict:
        """Grade here, in this process. Callers that need a time bound on any input (a session,
        `check`, lint) grade through a checker instead: `checker.grade(item, answer)`."""
        return self.grade_in_process(answer)

    def grade_in_process(self, answer: str) -> Verdict:
        """An answer restated in markdown marks, or several offered at once, graded as an
        examiner grades them (`graded_as_offered`); one answer as it stands by `grade_one`."""
        return graded_as_offered(answer, self.grade_one)

    def grade_one(self, answer: str) -> Verdict:  # pragma: no cover - every kind has one
        raise NotImplementedError

    def check_bank(self) -> list[str]:
        return self.check_bank_in_process()

    def check_bank_in_process(self) -> list[str]:
        return []

    @field_validator("answer", mode="before", check_fields=False)
    @classmethod
    def _number_as_text(cls, value: object) -> object:
        # `answer: 0` or `answer: 1` reads as a YAML number; for an expression it is still text.
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value if cls.kind_name == "number" else str(value)
        return value


@register_kind
class NumberItem(TypedItem):
    kind_name: ClassVar[str] = "number"

    kind: Literal["number"]
    # A number, or a constant expression such as "sqrt(512)" whose value is the answer.
    answer: float | Annotated[str, StringConstraints(min_length=1, max_length=200)]
    abs_tol: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    rel_tol: Annotated[float, Field(ge=0, le=1)] | None = None
    precision: Precision | None = None
    # The unit the answer is asked in (`MiB`, `FLOP/byte`, `s`); answers may use any unit of
    # the same kind and are converted.
    unit: str | None = None
    # How the answer is worked out: a computation of the catalogue and its inputs. Lint
    # recomputes it, so a mistyped answer is reported with the value the kernel gives.
    compute: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)

    @field_validator("answer", mode="after")
    @classmethod
    def _finite(cls, answer: float | str) -> float | str:
        # Beyond float range, no answer could be checked against it: refused as the bank is read.
        if isinstance(answer, str):
            return within_float_range(answer)
        if not math.isfinite(answer):
            raise ValueError(f"the answer {answer} is no finite number")
        return answer

    @model_validator(mode="after")
    def _well_formed(self) -> NumberItem:
        if self.abs_tol is None and self.rel_tol is None and self.precision is None:
            raise ValueError(
                "a number item needs abs_tol or rel_tol (how close is right), or a precision"
            )
        if self.unit is not None:
            from engine.checking.equivalence.units import known_unit

            if not known_unit(self.unit):
                raise ValueError(f"unit {self.unit!r} is not a unit pint knows")
        object.__setattr__(self, "prompt", with_precision_sentence(self.prompt, self.precision))
        if self.compute is None and self.inputs:
            raise ValueError("inputs are given but no compute names the computation they feed")
        if self.compute is not None:
            from engine.cards.catalogue import computation_named

            computation_named(self.compute).validate(self.inputs)
        return self

    def expected_value(self) -> float:
        if isinstance(self.answer, float | int):
            return float(self.answer)
        from engine.checking import evaluate_number

        return evaluate_number(self.answer, aliases=self.symbols)

    def answer_text(self) -> str:
        if isinstance(self.answer, str):
            try:
                value: float | None = self.expected_value()
            except (AnswerError, ValueError):
                value = None
        else:
            value = float(self.answer)
        if value is None:  # not worked out in time: show what the bank says
            shown = self.answer if isinstance(self.answer, str) else f"{self.answer:.6g}"
        else:
            shown = f"{value:.6g}"
            if isinstance(self.answer, str) and self.answer.strip() != shown:
                shown = f"{self.answer} ≈ {value:.4g}"
        return f"{shown} {self.unit}" if self.unit else shown

    def grade_one(self, answer: str) -> Verdict:
        from engine.checking import check_number

        verdict = check_number(answer, self._authors_value(self.answer), **self._how_close())
        if verdict.correct or not verdict.valid:
            return verdict
        for mistake in self.mistakes:
            if self._close(answer, mistake.answer):
                return replace(verdict, feedback=mistake.message)
        return verdict

    def _authors_value(self, text: str | float, what: str = "answer") -> float:
        """The value of the bank's answer or of one of its mistakes; one it cannot work out is
        the bank's fault (BankError), never reported as the learner's answer being unreadable."""
        try:
            if isinstance(text, str):
                from engine.checking import evaluate_number

                return evaluate_number(text, aliases=self.symbols)
            return float(text)
        except (AnswerError, ValueError) as exc:
            raise BankError([f"item {self.id!r}: {what} {text!r} is not a number: {exc}"]) from None

    def _close(self, answer: str, other: str) -> bool:
        """Is `answer` within this item's tolerance of the value of `other`?"""
        from engine.checking import check_number

        value = self._authors_value(other, "the mistake")
        return check_number(answer, value, **self._how_close()).correct

    def _how_close(self) -> dict[str, Any]:
        return {
            "abs_tol": self.abs_tol,
            "rel_tol": self.rel_tol,
            "precision": None if self.precision is None else self.precision.for_checking(),
            "unit": self.unit,
            "question": self.prompt,
        }

    def check_bank_in_process(self) -> list[str]:
        try:
            value = self.expected_value()
        except (AnswerError, ValueError) as exc:
            return [f"answer {self.answer!r} is not a number: {exc}"]
        problems = precision_prose_problem(self.prompt, self.precision)
        if self.compute is not None:
            from engine.cards.claims import recomputed_problem

            typed = self.answer if isinstance(self.answer, str) else f"{self.answer:g}"
            what = "the answer is" if typed == f"{value:g}" else f"the answer {typed} is"
            wrong = recomputed_problem(
                what, value, self.compute, self.inputs, self.abs_tol, self.rel_tol
            )
            problems += [wrong] if wrong else []
        for mistake in self.mistakes:
            try:
                if self.grade_in_process(mistake.answer).correct:
                    problems.append(f"the mistake {mistake.answer!r} is within the tolerance")
                else:
                    self._close(mistake.answer, mistake.answer)
            except (AnswerError, ValueError) as exc:
                problems.append(f"the mistake {mistake.answer!r} is not a number: {exc}")
            except BankError as exc:  # lint names the item itself
                problems.append(str(exc).removeprefix(f"item {self.id!r}: "))
        return problems


@register_kind
class ShapeItem(TypedItem):
    kind_name: ClassVar[str] = "shape"

    kind: Literal["shape"]
    answer: Annotated[str, StringConstraints(min_length=1, max_length=200)]

    def answer_text(self) -> str:
        return self.answer

    def grade_one(self, answer: str) -> Verdict:
        from engine.checking import check_shape, parse_shape

        verdict = check_shape(answer, self.answer, aliases=self.symbols, question=self.prompt)
        if verdict.correct or not verdict.valid:
            return verdict
        given = parse_shape(verdict.interpreted_as, aliases=self.symbols)
        for mistake in self.mistakes:
            if parse_shape(mistake.answer, aliases=self.symbols) == given:
                return replace(verdict, feedback=mistake.message)
        return verdict

    def check_bank_in_process(self) -> list[str]:
        from engine.checking import parse_shape

        problems = []
        for text in (self.answer, *(m.answer for m in self.mistakes)):
            try:
                parse_shape(text, aliases=self.symbols)
            except (AnswerError, ValueError) as exc:
                problems.append(f"{text!r} is not a shape: {exc}")
        if not problems:
            problems += [
                f"the mistake {m.answer!r} is the answer itself"
                for m in self.mistakes
                if self.grade_in_process(m.answer).correct
            ]
        return problems


@register_kind
class ExpressionItem(TypedItem):
    kind_name: ClassVar[str] = "expression"

    kind: Literal["expression"]
    answer: Annotated[AuthorAnswer, StringConstraints(min_length=1, max_length=400)]
    # The domain the answer is checked on: symbols that are positive, integer, or matrices
    # (non-commutative, so Q K^T and K^T Q differ).
    positive: tuple[SymbolName, ...] = ()
    integer: tuple[SymbolName, ...] = ()
    noncommutative: tuple[SymbolName, ...] = ()
    # Open intervals the random test points are drawn from, e.g. {p_i: [0, 1]} for probabilities.
    ranges: dict[SymbolName, tuple[float, float]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _usable_ranges(self) -> ExpressionItem:
        # Checked when the bank is read, not only by the checker once an answer is in.
        for name, bounds in self.ranges.items():
            if problem := range_problem(name, bounds, integer=name in self.integer):
                raise ValueError(problem)
        return self

    def answer_text(self) -> str:
        return self.answer

    def grade_one(self, answer: str) -> Verdict:
        from engine.checking import check_expression

        return check_expression(
            answer,
            self.answer,
            aliases=self.symbols,
            positive=self.positive,
            integer=self.integer,
            noncommutative=self.noncommutative,
            ranges=self.ranges,
            mistakes=[(m.answer, m.message) for m in self.mistakes],
            question=self.prompt,
        )

    def check_bank_in_process(self) -> list[str]:
        # The expected answer must be judged equal to itself, and no listed mistake may be.
        problems = []
        own = self.grade_in_process(self.answer)
        if not own.correct:
            problems.append(f"the answer {self.answer!r} does not check as correct: {own.feedback}")
        for m in self.mistakes:
            if self.grade_in_process(m.answer).correct:
                problems.append(f"the mistake {m.answer!r} is equivalent to the answer")
        return problems
