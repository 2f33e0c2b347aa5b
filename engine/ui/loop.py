"""The session loop, shared by the interactive and the scripted front end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine.cards import Item
from engine.schedule import Grade
from engine.session import Outcome, Question, ReviewSession, Summary
from engine.verdict import Verdict


@dataclass(frozen=True)
class Answered:
    grade: Grade
    answer: str | None
    verdict: Verdict | None
    duration_ms: int


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


def run_review(session: ReviewSession, frontend: Frontend) -> Summary:
    """Ask until the queue is empty or the learner ends; every answer is committed at once.

    The caller calls `session.finish()` (also after Ctrl-C) to close the session and summarise.
    """
    while (question := session.next_question()) is not None:
        action = frontend.ask(question, session)
        if isinstance(action, End):
            session.put_back(question)
            break
        if isinstance(action, Undo):
            session.put_back(question)
            frontend.show_undo(session.undo())
            continue
        outcome = session.commit(
            question, action.grade, action.answer, action.verdict, action.duration_ms
        )
        frontend.show_outcome(outcome, session)
    return session.summary
