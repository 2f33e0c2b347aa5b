"""One run of a clocked drill (timed or rapid-fire): its result, and the pure core that asks its
parts in order against a deadline.

`run_clocked` gets the clock, the parts' asking (a function per drill) and the store's `save`
passed in, so tests drive it with a fake clock and scripted replies. Both drills share its rules:

- the run is saved at the start, after every part and at the end, so an interrupted run keeps
  what was done;
- a reply that arrives after the limit is not graded: the part it answered is `timed_out`, and a
  part whose turn comes when no time is left is never shown (`not_reached`);
- the learner's stop (an empty line, `:quit`) ends the run there, Ctrl-C too but as `interrupted`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypeVar

from engine.clock import Clock


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
    """One attempt at a clocked drill (a timed drill or a rapid-fire round)."""

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


# -- the learner's replies -----------------------------------------------------------------------
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
class QuestionCheck:
    correct: bool
    feedback: str = ""
    interpreted_as: str = ""
    diagnosis: tuple[str, ...] = ()
    valid: bool = True  # False: the answer could not be read, so it was not graded


P = TypeVar("P")
P_contra = TypeVar("P_contra", contravariant=True)


class ClockedFrontend(Protocol[P_contra]):
    """What the core needs from a front end, for the drill's own kind of prompt."""

    def ask(self, prompt: P_contra) -> Reply: ...
    def show_check(self, prompt: P_contra, check: QuestionCheck) -> None: ...
    def show_time_up(self) -> None: ...


class TimeUp(Exception):
    """The drill's time ran out (raised by the core, or by a front end while input waits)."""


# -- the pure core -------------------------------------------------------------------------------
class Deadline:
    """The clock of one run against its limit, started when made.

    Time counts forward only: a wall clock set back during the run (by hand, an NTP step)
    counts as time standing still, so no part gets a negative duration (which the store
    would refuse as impossible) and no limit is stretched by the step.
    """

    def __init__(self, clock: Clock, limit_seconds: int) -> None:
        self.clock = clock
        self.limit_seconds = limit_seconds
        self.started = self._last = clock()
        self._elapsed = 0.0

    def elapsed(self) -> float:
        now = self.clock()
        self._elapsed += max(0.0, (now - self._last).total_seconds())
        self._last = now
        return self._elapsed

    def remaining(self) -> float:
        return self.limit_seconds - self.elapsed()

    def ask(self, frontend: ClockedFrontend[P], prompt_at: Callable[[float], P]) -> tuple[P, Reply]:
        """Show `prompt_at(seconds left)` and return it with the learner's reply; TimeUp when no
        time is left to ask, or when the reply came after the limit (it is not graded)."""
        remaining = self.remaining()
        if remaining <= 0:
            raise TimeUp
        prompt = prompt_at(remaining)
        reply = frontend.ask(prompt)
        if self.elapsed() > self.limit_seconds:
            raise TimeUp
        return prompt, reply


# Asks part `number` (from 1) until it ends; returns how. It may set the result's `seconds`
# itself (the rapid drill counts up to the reply, not its grading); otherwise the core does.
AskPart = Callable[[int, PartResult, Deadline], PartStatus]


def run_clocked(
    set_name: str,
    drill: str,
    limit_seconds: int,
    parts: list[PartResult],
    ask_part: AskPart,
    clock: Clock,
    *,
    show_time_up: Callable[[], None],
    save: Callable[[DrillRun], None] = lambda run: None,
) -> DrillRun:
    """Ask every part in order until the last one ends, the time is up or the learner stops.

    `save` is called at the start, after every part and at the end (see the module docstring).
    """
    deadline = Deadline(clock, limit_seconds)
    run = DrillRun(set_name, drill, deadline.started, limit_seconds, parts)
    save(run)
    current: PartResult | None = None
    part_started = 0.0
    try:
        for number, result in enumerate(run.parts, 1):
            part_started = deadline.elapsed()
            if limit_seconds - part_started <= 0:
                raise TimeUp  # this part is not shown: it stays not reached
            current = result
            result.status = ask_part(number, result, deadline)
            if result.seconds is None:
                result.seconds = deadline.elapsed() - part_started
            current = None
            if result.status is PartStatus.STOPPED:
                break
            save(run)
    except TimeUp:
        show_time_up()
        if current is not None:
            current.status = PartStatus.TIMED_OUT
            current.seconds = deadline.elapsed() - part_started
    except KeyboardInterrupt:
        run.interrupted = True
        if current is not None:
            current.status = PartStatus.STOPPED
            current.seconds = deadline.elapsed() - part_started
    run.total_seconds = deadline.elapsed()
    save(run)
    return run
