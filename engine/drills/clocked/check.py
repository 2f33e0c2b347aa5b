"""A card's verdict as a clocked drill shows it (the timed drill's items, the rapid drill's
shapes), graded by the checker passed in."""

from __future__ import annotations

from engine.cards.base import Item
from engine.checking.worker.bounded import Checker, grade_card
from engine.drills.clocked.run import QuestionCheck
from engine.verdict import Verdict


def check_card(checker: Checker, item: Item, answer: str) -> QuestionCheck:
    """Typed kinds are graded by `checker` (in its worker, so whatever is typed gets an answer
    within the time limit). An answer that cannot be read is not graded (`valid` is False): the
    drill asks it again, with what could not be read."""
    return as_check(grade_card(checker, item, answer))


def as_check(verdict: Verdict) -> QuestionCheck:
    """A verdict as a clocked drill shows it."""
    return QuestionCheck(
        verdict.correct, verdict.feedback, verdict.interpreted_as, valid=verdict.valid
    )
