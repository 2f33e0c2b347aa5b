"""One attempt at a timed drill: its result, and the pure core that asks the parts in order.

`run_drill` gets the clock, the learner's replies (a front end), the grading and the store passed
in, so tests drive it with a fake clock and scripted replies.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Protocol

from engine.drills.timed.file import TimedDrill, TimedPart, TimedQuestion


class PartStatus(enum.StrEnum):
    RIGHT = "right"
    SKIPPED = "skipped"
    TIMED_OUT = "timed_out"  # the clock ran out while on this part
    STOPPED = "stopped"  # the learner ended the drill (empty line, :quit, Ctrl-C)
    NOT_REACHED = "not_reached"
    WRONG = "wrong"  # answered wrong, with no second try (the rapid-fire drill)


@dataclass
class PartResult:
    part_id: str
    title: str
    status: PartStatus = PartStatus.NOT_REACHED
    attempts: int = 0
    seconds: float | None = None  # from the part's first question to its end
    feedback: str = ""  # what the last wrong attempt was told
    diagnosis: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.status is PartStatus.RIGHT


@dataclass
class DrillRun:
    """One attempt at a timed drill, serialisable with `to_dict`."""

    set_name: str
    drill: str
    started: datetime
    limit_seconds: int
    parts: list[PartResult]
    total_seconds: float = 0.0
    interrupted: bool = False
    run_id: int | None = None

    @property
    def all_right(self) -> bool:
        return all(part.right for part in self.parts)

    @property
    def within_limit(self) -> bool:
        return self.all_right and self.total_seconds <= self.limit_seconds

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["started"] = self.started.isoformat()
        data["parts"] = [{**asdict(p), "status": str(p.status)} for p in self.parts]
        data["within_limit"] = self.within_limit
        return data


# -- the pure core -------------------------------------------------------------------------------
class Control(enum.Enum):
    SKIP = "skip"  # give up on this part, go on to the next
    STOP = "stop"  # end the drill now


Reply = str | Control


def reply_from(text: str) -> Reply:
    """A typed line as a reply: `:skip`/`:s` and `:quit`/`:q` are commands, anything else is the
    answer as typed."""
    command = text.strip()
    if command in {":skip", ":s"}:
        return Control.SKIP
    if command in {":quit", ":q"}:
        return Control.STOP
    return text


@dataclass(frozen=True)
class Prompt:
    part: TimedPart
    part_number: int
    parts_total: int
    question: TimedQuestion
    text: str
    attempt: int
    remaining_seconds: float


@dataclass(frozen=True)
class QuestionCheck:
    correct: bool
    feedback: str = ""
    interpreted_as: str = ""
    diagnosis: tuple[str, ...] = ()


class Checker(Protocol):
    def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck: ...


class TimedFrontend(Protocol):
    def ask(self, prompt: Prompt) -> Reply: ...
    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None: ...
    def show_time_up(self) -> None: ...


class TimeUp(Exception):
    """The drill's time ran out (raised by the core, or by a front end while input waits)."""


def run_drill(
    drill: TimedDrill,
    frontend: TimedFrontend,
    checker: Checker,
    clock: Callable[[], datetime],
    *,
    prompt_of: Callable[[TimedQuestion], str],
    save: Callable[[DrillRun], None] = lambda run: None,
) -> DrillRun:
    """Ask every part in order until it is right, skipped, or the time is up.

    A wrong answer is asked again while time remains. An answer that arrives after the limit is
    not graded. `save` is called after every part (and at the start and end), so an interrupted
    run keeps what was done. Ctrl-C ends the run as stopped; the caller sees `interrupted`.
    """
    started = clock()
    run = DrillRun(
        drill.set_name,
        drill.name,
        started,
        drill.limit_seconds,
        [PartResult(part.id, part.title) for part in drill.parts],
    )

    def elapsed() -> float:
        return (clock() - started).total_seconds()

    save(run)
    current: PartResult | None = None
    part_started = 0.0
    try:
        for number, (part, result) in enumerate(zip(drill.parts, run.parts, strict=True), 1):
            current, part_started = result, elapsed()
            result.status = _ask_part(
                part, number, drill, result, frontend, checker, elapsed, prompt_of
            )
            result.seconds = elapsed() - part_started
            current = None
            if result.status is PartStatus.STOPPED:
                break
            save(run)
    except TimeUp:
        frontend.show_time_up()
        if current is not None:
            current.status, current.seconds = PartStatus.TIMED_OUT, elapsed() - part_started
    except KeyboardInterrupt:
        run.interrupted = True
        if current is not None:
            current.status, current.seconds = PartStatus.STOPPED, elapsed() - part_started
    run.total_seconds = elapsed()
    save(run)
    return run


def _ask_part(
    part: TimedPart,
    number: int,
    drill: TimedDrill,
    result: PartResult,
    frontend: TimedFrontend,
    checker: Checker,
    elapsed: Callable[[], float],
    prompt_of: Callable[[TimedQuestion], str],
) -> PartStatus:
    for question in part.questions:
        attempt = 1
        while True:
            remaining = drill.limit_seconds - elapsed()
            if remaining <= 0:
                raise TimeUp
            prompt = Prompt(
                part, number, len(drill.parts), question, prompt_of(question), attempt, remaining
            )
            reply = frontend.ask(prompt)
            if elapsed() > drill.limit_seconds:
                raise TimeUp
            if reply is Control.STOP:
                return PartStatus.STOPPED
            if reply is Control.SKIP:
                return PartStatus.SKIPPED
            assert isinstance(reply, str)
            result.attempts += 1
            check = checker.check(part, question, reply)
            frontend.show_check(prompt, check)
            if check.correct:
                break
            result.feedback, result.diagnosis = check.feedback, list(check.diagnosis)
            attempt += 1
    result.feedback, result.diagnosis = "", []
    return PartStatus.RIGHT
