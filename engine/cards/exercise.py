"""Coding exercises as cards: write a function, graded by the sandbox, scheduled by FSRS.

The bank holds everything about an exercise as data: its title, the function and signature,
the starter file, hints from gentlest to strongest, the battery it is graded on, its named
mistakes (each with a message for the learner and a buggy variant that must be caught as that
mistake) and a reference solution shown after a pass. The grading itself (battery, comparison,
diagnosis) lives in `attention_ref.exercises`; this card only describes the exercise. Lint runs
the reference solution and every buggy variant through the grader (`check_bank`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from engine.cards.base import Item, ItemId, Text, register_kind

if TYPE_CHECKING:
    from attention_ref.grading import Grade

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
MistakeName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
Code = Annotated[str, StringConstraints(min_length=1, max_length=20000)]
# Diagnoses about the form of the answer, named by the grader for every exercise.
FORM_WORDS = {
    "wrong_shape": "the output has the wrong shape",
    "holds_full_matrix": "the call holds the whole T_q × T_k matrix at once",
}


class ExerciseMistake(BaseModel):
    """A classic mistake: its diagnosis name, what to tell the learner, and code that makes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: MistakeName
    message: Text
    variant: Code


@register_kind
class ExerciseItem(Item):
    kind_name: ClassVar[str] = "exercise"
    # Graded by the sandbox, not by the typed-answer checker; the verdict suggests the rating.
    self_rated: ClassVar[bool] = False

    kind: Literal["exercise"]
    title: Text
    function: Identifier
    signature: Text
    starter: Code
    hints: tuple[Text, ...] = ()
    battery: ItemId | None = None  # default: the exercise's id
    mistakes: tuple[ExerciseMistake, ...] = ()
    solution: Code

    @property
    def battery_name(self) -> str:
        return self.battery or self.id

    def hint_steps(self) -> tuple[str, ...]:
        return self.hints

    def answer_text(self) -> str:
        return self.solution

    def mistake_words(self, mistake: str) -> str:
        """What to tell the learner about a diagnosis: the exercise's own message for it, else
        words for a mistake of form, else the name in words."""
        own = next((m.message for m in self.mistakes if m.name == mistake), None)
        words = own or FORM_WORDS.get(mistake) or mistake.replace("_", " ")
        return " ".join(words.split())

    def grade_source(
        self,
        source: str,
        shown_as: Path | None = None,
        *,
        function: str | None = None,
        **options: object,
    ) -> Grade:
        """Grade code text in the sandbox (the file is shown as `shown_as`); `function` checks
        another name than the exercise's (the learner's `--func`)."""
        from attention_ref.exercises import grade_exercise

        path = shown_as or Path(f"{self.function}.py")
        return grade_exercise(
            path,
            self.id,
            function or self.function,
            battery=self.battery_name,
            mistakes=[m.name for m in self.mistakes],
            source=source,
            **options,  # type: ignore[arg-type]
        )

    def time_source(
        self, source: str, shown_as: Path, *, function: str | None = None, **options: Any
    ) -> dict[str, Any] | None:
        """Time a passing version against this exercise's reference solution (and the fast
        kernel where it computes the same); None for a battery with no timing inputs."""
        from attention_ref.exercises.timing import time_exercise

        return time_exercise(
            source,
            shown_as,
            self.battery_name,
            function or self.function,
            self.solution,
            self.function,
            **options,
        )

    def check_bank(self) -> list[str]:
        """Lint: the battery exists, every mistake is known to it, the reference solution passes
        and every buggy variant fails with its own name in the diagnosis."""
        from attention_ref.exercises import BATTERIES, FORM_MISTAKES, MISTAKES

        if self.battery_name not in BATTERIES:
            known = ", ".join(sorted(BATTERIES))
            return [f"battery {self.battery_name!r} is not one of: {known}"]
        problems = [
            f"mistake {m.name!r} is not a mistake the {self.battery_name} battery can name"
            for m in self.mistakes
            if m.name not in MISTAKES.get(self.battery_name, {})
            and m.name not in FORM_MISTAKES.get(self.battery_name, frozenset())
        ]
        if problems:
            return problems
        from attention_ref.sandbox import Limits

        # Lint judges correctness, not speed: a busy machine must not turn a slow call into a
        # finding, so each call gets a minute.
        patient = Limits(seconds_per_call=60.0)
        with tempfile.TemporaryDirectory(prefix="attnquiz-lint-") as folder:
            shown = Path(folder) / f"{self.function}.py"
            grade = self.grade_source(self.solution, shown, limits=patient)
            if not grade.passed:
                failed = next((c for c in grade.cases if not c.passed), None)
                detail = f"{failed.name}: {failed.message}" if failed else grade.message
                problems.append(f"the reference solution does not pass ({detail})")
            for mistake in self.mistakes:
                grade = self.grade_source(mistake.variant, shown, limits=patient)
                if grade.passed:
                    problems.append(f"the variant of mistake {mistake.name!r} passes")
                elif mistake.name not in grade.diagnosis:
                    named = ", ".join(grade.diagnosis) or grade.message or grade.verdict
                    problems.append(
                        f"the variant of mistake {mistake.name!r} is not named as it "
                        f"(the grader said: {named})"
                    )
        return problems
