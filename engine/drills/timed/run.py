"""One attempt at a timed drill: its parts asked in order, each question until it is right.

`run_drill` is the timed drill's part of the clocked-drill core (`engine.drills.clocked.run`):
a wrong answer is asked again while time remains, and a part is right once each of its questions
is. An answer that cannot be read is not graded: the same question is asked again and no attempt
is counted. The clock, the learner's replies (a front end), the grading and the store are passed
in, so tests drive it with a fake clock and scripted replies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from engine.drills.clocked.run import (
    Clock,
    ClockedFrontend,
    Control,
    Deadline,
    DrillRun,
    PartResult,
    PartStatus,
    QuestionCheck,
    run_clocked,
)
from engine.drills.timed.file import TimedDrill, TimedPart, TimedQuestion


@dataclass(frozen=True)
class Prompt:
    part: TimedPart
    part_number: int
    parts_total: int
    question: TimedQuestion
    text: str
    attempt: int
    remaining_seconds: float


class Checker(Protocol):
    def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck: ...


TimedFrontend = ClockedFrontend[Prompt]


def run_drill(
    drill: TimedDrill,
    frontend: TimedFrontend,
    checker: Checker,
    clock: Clock,
    *,
    prompt_of: Callable[[TimedQuestion], str],
    save: Callable[[DrillRun], None] = lambda run: None,
) -> DrillRun:
    """Ask every part in order until it is right, skipped, or the time is up (the rules of
    `run_clocked`: saved as it goes, a late answer not graded, Ctrl-C ends it as interrupted)."""

    def ask_part(number: int, result: PartResult, deadline: Deadline) -> PartStatus:
        part = drill.parts[number - 1]
        for question in part.questions:
            attempt = 1
            while True:
                heading = (part, number, len(drill.parts), question, prompt_of(question), attempt)
                prompt, reply = deadline.ask(frontend, partial(Prompt, *heading))
                if reply is Control.STOP:
                    return PartStatus.STOPPED
                if reply is Control.SKIP:
                    return PartStatus.SKIPPED
                assert isinstance(reply, str)
                check = checker.check(part, question, reply)
                frontend.show_check(prompt, check)
                if not check.valid:
                    continue  # not graded: the same question again, no attempt spent
                result.attempts += 1
                if check.correct:
                    break
                result.feedback, result.diagnosis = check.feedback, list(check.diagnosis)
                attempt += 1
        result.feedback, result.diagnosis = "", []
        return PartStatus.RIGHT

    parts = [PartResult(part.id, part.title) for part in drill.parts]
    return run_clocked(
        drill.set_name,
        drill.name,
        drill.limit_seconds,
        parts,
        ask_part,
        clock,
        show_time_up=frontend.show_time_up,
        save=save,
    )
