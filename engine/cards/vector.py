"""Vector and small-matrix cards: the answer is a list of numbers, e.g. softmax([2, 1, 0.1])."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from engine.cards.base import register_kind
from engine.cards.typed import TypedItem
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

# Plain numbers separated by spaces: a list when a list is asked for, not a product.
_SPACED_NUMBERS = re.compile(r"\s*[-+]?[\d.]+(?:e[-+]?\d+)?(?:\s+[-+]?[\d.]+(?:e[-+]?\d+)?)+\s*")

Row = Annotated[list[float], Field(min_length=1, max_length=16)]


@register_kind
class VectorItem(TypedItem):
    kind_name: ClassVar[str] = "vector"

    kind: Literal["vector"]
    # A vector [a, b, c] or a matrix [[a, b], [c, d]] of numbers.
    answer: Row | Annotated[list[Row], Field(min_length=1, max_length=16)]
    abs_tol: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    rel_tol: Annotated[float, Field(ge=0, le=1)] | None = None

    @model_validator(mode="after")
    def _well_formed(self) -> VectorItem:
        if self.abs_tol is None and self.rel_tol is None:
            raise ValueError("a vector item needs abs_tol or rel_tol (how close is right)")
        rows = self.answer
        if rows and isinstance(rows[0], list) and len({len(r) for r in rows}) != 1:  # type: ignore[arg-type]
            raise ValueError("every row of a matrix answer needs the same length")
        return self

    def answer_text(self) -> str:
        def show(values: list[float]) -> str:
            return "[" + ", ".join(f"{v:.4g}" for v in values) + "]"

        rows = self.answer
        if rows and isinstance(rows[0], list):
            return "[" + ", ".join(show(r) for r in rows) + "]"  # type: ignore[arg-type]
        return show(rows)  # type: ignore[arg-type]

    def grade_one(self, answer: str) -> Verdict:
        from engine.checking import check_vector

        if _SPACED_NUMBERS.fullmatch(answer):
            answer = f"[{answer.strip()}]"
        verdict = check_vector(answer, self.answer, abs_tol=self.abs_tol, rel_tol=self.rel_tol)
        if verdict.correct or not verdict.valid:
            return verdict
        for mistake in self.mistakes:
            if self._matches(answer, mistake.answer):
                return replace(verdict, feedback=mistake.message)
        return verdict

    def _matches(self, answer: str, wrong: str) -> bool:
        from engine.checking import check_vector, parse_vector

        values = parse_vector(wrong)
        return check_vector(answer, values, abs_tol=self.abs_tol, rel_tol=self.rel_tol).correct

    def check_bank_in_process(self) -> list[str]:
        problems = []
        for mistake in self.mistakes:
            try:
                if self.grade_in_process(mistake.answer).correct:
                    problems.append(f"the mistake {mistake.answer!r} is within the tolerance")
            except (AnswerError, BankError, ValueError) as exc:
                problems.append(f"the mistake {mistake.answer!r} is not a vector: {exc}")
        return problems
