"""The result of grading one answer."""

from __future__ import annotations

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
