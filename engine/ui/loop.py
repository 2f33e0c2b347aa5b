"""The session loop, shared by the interactive and the scripted front end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine.cards import Item
from engine.schedule import Grade, Phase
from engine.session import Outcome, Question, ReviewSession, Summary
from engine.verdict import Verdict


@dataclass(frozen=True)
class Answered:
    grade: Grade
    answer: str | None
    verdict: Verdict | None
    duration_ms: int


@dataclass(frozen=True)
class AnswerMark:
    """One committed answer, as the end-of-session chart shows it."""

    item_id: str
    tags: tuple[str, ...]
    grade: Grade
    new: bool  # the card's first review


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class End:
    pass


Action = Answered | Undo | End


class Frontend(Protocol):
    def ask(self, question: Question, session: ReviewSession) -> Action: ...
    def show_outcome(self, outcome: Outcome, session: ReviewSession) -> None: ...
    def show_undo(self, item: Item | None) -> None: ...


def run_review(
    session: ReviewSession, frontend: Frontend, answers: list[AnswerMark] | None = None
) -> Summary:
    """Ask until the queue is empty or the learner ends; every answer is committed at once.

    The caller calls `session.finish()` (also after Ctrl-C) to close the session and summarise.
    `answers`, when given, receives each answer in order (an undone one is taken out again);
    being the caller's list, it keeps what was answered when Ctrl-C ends the loop.
    """
    while (question := session.next_question()) is not None:
        action = frontend.ask(question, session)
        if isinstance(action, End):
            session.put_back(question)
            break
        if isinstance(action, Undo):
            session.put_back(question)
            taken_back = session.undo()
            if taken_back is not None and answers:
                answers.pop()
            frontend.show_undo(taken_back)
            continue
        outcome = session.commit(
            question, action.grade, action.answer, action.verdict, action.duration_ms
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
        frontend.show_outcome(outcome, session)
    return session.summary
