"""Computed cards: the truth is worked out by `attention_ref`, never typed into the bank.

An item names one computation of the catalogue (engine/cards/catalogue.py: `softmax`,
`attention_output`, `scores_memory`, ...), gives its inputs, and writes its prompt as a template
whose `{name}` placeholders are filled with those inputs:

    - id: softmax-2-1-01-first
      kind: computed
      compute: softmax_entry
      inputs: {scores: [2, 1, 0.1], index: 1}
      vary: [scores]
      abs_tol: 0.01
      prompt: Compute the {index_ordinal} entry of softmax({scores}).

The bank's inputs are what `prompt`, `grade` and `answer_text` use (seed 0). Inputs listed in
`vary` are drawn afresh for every other seed, with `numpy.random.default_rng` seeded by the item
id and the seed (the review number), so a review can be replayed: `at_seed(seed)` is the item
with those inputs filled in (what a session asks at review number `seed`).
"""

from __future__ import annotations

import math
import re
import zlib
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from engine.cards.base import register_kind
from engine.cards.catalogue import COMPUTATIONS, computation_named
from engine.cards.computation import Computation, Value, describe_inputs
from engine.cards.typed import (
    Precision,
    TypedItem,
    precision_prose_problem,
    with_precision_sentence,
)
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

__all__ = ["COMPUTATIONS", "ComputedItem"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Plain numbers separated by spaces: a list when a list is asked for, not a product.
_SPACED_NUMBERS = re.compile(r"\s*[-+]?[\d.]+(?:e[-+]?\d+)?(?:\s+[-+]?[\d.]+(?:e[-+]?\d+)?)+\s*")


# -- the card kind -------------------------------------------------------------------------------
@register_kind
class ComputedItem(TypedItem):
    kind_name: ClassVar[str] = "computed"

    kind: Literal["computed"]
    compute: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    # Inputs drawn afresh on every review but the first (seed 0 shows the bank's inputs).
    vary: tuple[str, ...] = ()
    abs_tol: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    rel_tol: Annotated[float, Field(ge=0, le=1)] | None = None
    # How a single number must be rounded; shown in the prompt and applied by the check.
    precision: Precision | None = None
    # The unit the answer is asked in when the computation has no `unit` input (`FLOP/byte`).
    unit: str | None = None
    # The prompt as the author wrote it, with placeholders; `prompt` is it filled in.
    template: str | None = None
    # The same for the explanation, so that it speaks of the numbers drawn for this review.
    explanation_template: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _keep_template(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("template") is None and "prompt" in data:
            data = {**data, "template": data["prompt"]}
        if (
            isinstance(data, dict)
            and data.get("explanation_template") is None
            and data.get("explanation")
        ):
            data = {**data, "explanation_template": data["explanation"]}
        return data

    @model_validator(mode="after")
    def _well_formed(self) -> ComputedItem:
        if self.abs_tol is None and self.rel_tol is None and self.precision is None:
            raise ValueError(
                "a computed item needs abs_tol or rel_tol (how close is right), or a precision"
            )
        computation = computation_named(self.compute)
        computation.validate(self.inputs)  # raises ValueError with the author's mistake
        for name in self.vary:
            if name not in computation.drawable():
                raise ValueError(
                    f"vary names {name!r}, which {self.compute} cannot draw "
                    f"(it can draw: {', '.join(computation.drawable()) or 'nothing'})"
                )
        # The shown prompt is derived data: set it here, once, from the template and inputs.
        prompt = self._fill(self.template or self.prompt, computation)
        object.__setattr__(self, "prompt", with_precision_sentence(prompt, self.precision))
        if self.explanation_template:
            explanation = self._fill(self.explanation_template, computation, "explanation")
            object.__setattr__(self, "explanation", explanation)
        return self

    def _fill(self, template: str, computation: Computation, where: str = "prompt") -> str:
        shown = describe_inputs(computation, self.inputs)

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in shown:
                raise ValueError(
                    f"the {where} names {{{name}}}, which is not an input of {self.compute} "
                    f"(placeholders: {', '.join('{' + n + '}' for n in sorted(shown))})"
                )
            return shown[name]

        return _PLACEHOLDER.sub(value, template)

    # -- seeds -----------------------------------------------------------------------------------
    def at_seed(self, seed: int) -> ComputedItem:
        """This item with the inputs of review `seed`: the bank's at seed 0, drawn otherwise."""
        if seed <= 0 or not self.vary:
            return self
        import numpy as np

        rng = np.random.default_rng([zlib.crc32(self.id.encode("utf-8")), seed])
        drawn = COMPUTATIONS[self.compute].draw(rng, self.inputs, self.vary)
        data = self.model_dump(mode="json")
        # The bank's mistakes are wrong answers for the bank's inputs only.
        data.update(inputs=drawn, vary=(), mistakes=(), line=self.line)
        data["explanation_template"] = self._explanation_for_drawn(drawn)
        return type(self).model_validate(data)

    def _explanation_for_drawn(self, drawn: dict[str, Any]) -> str | None:
        """The explanation for drawn inputs: an author's template speaks of them itself; one
        that works the bank's own numbers says so, so that it is not read as about these."""
        text = self.explanation_template
        if not text or _PLACEHOLDER.search(text) or drawn == self.inputs:
            return text
        shown = describe_inputs(COMPUTATIONS[self.compute], self.inputs)
        quoted = set(_NUMBER.findall(text))
        if not any(set(_NUMBER.findall(shown[name])) & quoted for name in self.vary):
            return text
        bank = ", ".join(f"{name} = {shown[name]}" for name in self.vary)
        return (
            f"{text.rstrip()}\n(Worked with the bank's example, {bank}; this review drew other "
            "numbers, and the answer above is for yours.)"
        )

    # -- the truth and grading -------------------------------------------------------------------
    def truth(self) -> Value:
        """The right answer for this item's inputs, from the reference kernels."""
        return COMPUTATIONS[self.compute].truth(self.inputs)

    def answer_text(self) -> str:
        truth = self.truth()
        unit = self.inputs.get("unit")
        shown = _show(truth)
        return f"{shown} {unit}" if isinstance(unit, str) and not isinstance(truth, list) else shown

    def grade_one(self, answer: str) -> Verdict:
        truth = self.truth()
        verdict = self._check(answer, truth)
        if verdict.correct or not verdict.valid:
            return verdict
        for mistake in self.mistakes:
            if self._check(answer, _read_author_value(mistake.answer, truth)).correct:
                return _with_feedback(verdict, mistake.message)
        for message, wrong in self.slip_values():
            if self._check(answer, wrong).correct:
                return _with_feedback(verdict, message)
        return verdict

    def slip_values(self) -> list[tuple[str, Value]]:
        """The values the computation's classic slips give for these inputs, with their
        messages; a slip that happens to give the right value here is left out."""
        computation = COMPUTATIONS[self.compute]
        inputs, truth = computation.complete(self.inputs), self.truth()
        found = []
        for slip in computation.slips:
            wrong = slip.value(inputs)
            if wrong is not None and not self._check(_show_exact(truth), wrong).correct:
                found.append((slip.message, wrong))
        return found

    def _check(self, answer: str, expected: Value) -> Verdict:
        from engine.checking import check_number, check_vector

        if isinstance(expected, list):
            if _SPACED_NUMBERS.fullmatch(answer):
                answer = f"[{answer.strip()}]"
            precision = None if self.precision is None else self.precision.for_checking()
            return check_vector(
                answer, expected, abs_tol=self.abs_tol, rel_tol=self.rel_tol, precision=precision
            )
        unit = self.inputs.get("unit", self.unit)
        return check_number(
            answer,
            expected,
            abs_tol=self.abs_tol,
            rel_tol=self.rel_tol,
            precision=None if self.precision is None else self.precision.for_checking(),
            unit=unit if isinstance(unit, str) and unit != "one" else None,
            question=self.prompt,
        )

    def check_bank_in_process(self) -> list[str]:
        """The truth is finite for the bank's inputs and for a few drawn ones; no listed mistake
        is right."""
        problems = precision_prose_problem(self.prompt, self.precision)
        seeds = [0] + ([1, 2, 3] if self.vary else [])
        for seed in seeds:
            item = self.at_seed(seed)
            try:
                values = _flatten(item.truth())
            except (ValueError, ArithmeticError) as exc:
                problems.append(f"inputs {item.inputs} cannot be computed: {exc}")
                continue
            if not all(math.isfinite(v) for v in values):
                problems.append(f"inputs {item.inputs} give a value that is not finite")
            if not item.grade_in_process(_show_exact(item.truth())).correct:
                problems.append(f"the computed answer for inputs {item.inputs} does not check")
            try:
                item.slip_values()
            except (ValueError, ArithmeticError, KeyError, IndexError) as exc:
                problems.append(f"a slip of {self.compute} fails for inputs {item.inputs}: {exc}")
        for mistake in self.mistakes:
            try:
                if self.grade_in_process(mistake.answer).correct:
                    problems.append(f"the mistake {mistake.answer!r} is within the tolerance")
            except (AnswerError, BankError, ValueError) as exc:
                problems.append(f"the mistake {mistake.answer!r} cannot be read: {exc}")
        return problems


def _read_author_value(text: str, like: Value) -> Value:
    from engine.checking import evaluate_number, parse_vector

    return parse_vector(text) if isinstance(like, list) else evaluate_number(text)


def _with_feedback(verdict: Verdict, message: str) -> Verdict:
    from dataclasses import replace

    return replace(verdict, feedback=message)


def _show(value: Value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return f"{value:.4g}"


def _show_exact(value: Value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show_exact(v) for v in value) + "]"
    return repr(float(value))


def _flatten(value: Value) -> list[float]:
    if isinstance(value, list):
        return [x for v in value for x in _flatten(v)]
    return [float(value)]
