"""The session loop, shared by the interactive and the scripted front end."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from engine.cards import Item
from engine.interrupts import ctrl_c_held
from engine.schedule import Grade, Phase
from engine.session import Outcome, Question, ReviewSession, Summary
from engine.verdict import Verdict


@dataclass(frozen=True)
class Answered:
    grade: Grade
    answer: str | None
    verdict: Verdict | None
    duration_ms: int
    at: datetime | None = None  # the moment the rating keys were computed for (the preview's)
    sure: bool | None = None  # the learner's confidence, when asked
    last: bool = False  # the learner ended the session right after this answer


class GradedInterrupt(KeyboardInterrupt):
    """Ctrl-C after an answer was graded but before it was rated: it is saved with the
    suggested rating, then the session ends as after any Ctrl-C (exit 130)."""

    def __init__(self, answered: Answered) -> None:
        super().__init__()
        self.answered = answered


@dataclass(frozen=True)
class AnswerMark:
    """One committed answer, as the end-of-session chart shows it."""

    item_id: str
    tags: tuple[str, ...]
    grade: Grade
    new: bool  # the card's first review


@dataclass(frozen=True)
class Undo:
    """Take back the previous card's answer (at a question prompt)."""


@dataclass(frozen=True)
class Retry:
    """Take back the answer just given, before it was rated: the same card is asked again."""


@dataclass(frozen=True)
class End:
    pass


Action = Answered | Undo | Retry | End


class Frontend(Protocol):
    def ask(self, question: Question, session: ReviewSession) -> Action: ...
    def show_outcome(self, outcome: Outcome, session: ReviewSession) -> None: ...
    def show_undo(self, item: Item | None) -> None: ...
    def show_retry(self, question: Question) -> None: ...
    def show_saved_on_interrupt(self, outcome: Outcome) -> None: ...


def run_review(
    session: ReviewSession, frontend: Frontend, answers: list[AnswerMark] | None = None
) -> Summary:
    """Ask until the queue is empty or the learner ends; every answer is committed at once.

    The caller calls `session.finish()` (also after Ctrl-C) to close the session and summarise.
    `answers`, when given, receives each answer in order (an undone one is taken out again);
    being the caller's list, it keeps what was answered when Ctrl-C ends the loop.
    """
    while (question := session.next_question()) is not None:
        try:
            action = frontend.ask(question, session)
        except GradedInterrupt as stop:
            outcome = _commit(session, question, stop.answered, answers)
            frontend.show_saved_on_interrupt(outcome)
            raise
        if isinstance(action, End):
            session.put_back(question)
            break
        if isinstance(action, Retry):
            session.put_back(question)
            frontend.show_retry(question)
            continue
        if isinstance(action, Undo):
            session.put_back(question)
            taken_back = session.undo()
            if taken_back is not None and answers:
                answers.pop()
            frontend.show_undo(taken_back)
            continue
        outcome = _commit(session, question, action, answers)
        frontend.show_outcome(outcome, session)
        if action.last:
            break
    return session.summary


def _commit(
    session: ReviewSession,
    question: Question,
    action: Answered,
    answers: list[AnswerMark] | None,
) -> Outcome:
    with ctrl_c_held():  # the answer saved is also among `answers` when Ctrl-C stops
        outcome = session.commit(
            question,
            action.grade,
            action.answer,
            action.verdict,
            action.duration_ms,
            at=action.at,
            sure=action.sure,
        )
        if answers is not None:
            answers.append(
                AnswerMark(
                    item_id=outcome.item.id,
                    tags=outcome.item.tags,
                    grade=outcome.grade,
                    new=outcome.before.phase == Phase.NEW,
                )
            )
    return outcome
