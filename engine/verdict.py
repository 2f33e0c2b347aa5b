"""The result of grading one answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """What the checker concluded about one answer.

    `valid` is False when the answer could not be read at all (then `correct` is False too);
    `score` is the partial credit in [0, 1] (1.0 for a correct answer); `interpreted_as` is how the
    checker read the answer, pretty-printed, so the learner can see a misreading.
    """

    correct: bool
    valid: bool = True
    interpreted_as: str = ""
    feedback: str = ""
    score: float = 0.0

    def __post_init__(self) -> None:
        if self.correct and not self.valid:
            raise ValueError("an unreadable answer cannot be correct")

    def to_json(self, item: str) -> dict[str, object]:
        return {
            "item": item,
            "correct": self.correct,
            "valid": self.valid,
            "interpreted_as": self.interpreted_as,
            "feedback": self.feedback,
        }


def on_offered(pieces: list[str], verdicts: list[Verdict]) -> Verdict:
    """The verdict on several answers offered at once (`d_k or sqrt(d_k)`), as an examiner
    gives it from the verdict on each: right when every one is right, wrong when one that can
    be read is wrong, else unreadable."""
    shown = " or ".join(v.interpreted_as or p for p, v in zip(pieces, verdicts, strict=True))
    for piece, verdict in zip(pieces, verdicts, strict=True):
        if verdict.valid and not verdict.correct:
            feedback = f"give one answer: `{piece}` is not right"
            feedback += f" ({verdict.feedback})" if verdict.feedback else ""
            return Verdict(correct=False, interpreted_as=shown, feedback=feedback)
    unreadable = next((v for v in verdicts if not v.valid), None)
    if unreadable is not None:
        return unreadable
    feedback = "correct: each answer you offered is right, but give one next time"
    return Verdict(correct=True, interpreted_as=shown, feedback=feedback, score=1.0)


def graded_as_offered(answer: str, grade_one: Callable[[str], Verdict]) -> Verdict:
    """The verdict on `answer` from `grade_one`, which grades one answer as it stands, with what
    an examiner reads around it: an answer set in markdown marks (`` `d_k` ``, `**d_k**`) is
    graded by what they hold, and several answers offered at once (`d_k or sqrt(d_k)`) each on
    its own, their verdict joined by `on_offered`. Typed cards, the timed drill's derivation
    steps and `check_expression` grade through it."""
    # The reading modules load the checking package: not at start-up, where verdicts are shown.
    from engine.checking.reading.statement import offered_answers
    from engine.checking.reading.typography import without_markup

    inside = without_markup(answer)
    pieces = offered_answers(inside)
    if pieces is None:
        return grade_one(inside)
    verdicts = [graded_as_offered(piece, grade_one) for piece in pieces]
    return on_offered([without_markup(piece) for piece in pieces], verdicts)
