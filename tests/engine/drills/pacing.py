"""A fake clock and a paced front end for the timed and rapid drills: each reply takes the
clock forward by a chosen number of seconds, so time limits are tested without real time."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, TextIO

from rich.console import Console

from engine.drills.clocked.run import QuestionCheck, Reply

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class PacedFrontend:
    """The drill's scripted front end (`scripted`, named by each drill's subclass), every reply
    taking the fake clock's next `seconds` (1 s when unsaid)."""

    scripted: ClassVar[Callable[[TextIO, Console], Any]]
    lines: list[str]
    clock: FakeClock
    seconds: Iterator[float]
    out: io.StringIO = field(default_factory=io.StringIO)
    prompts: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        console = Console(file=self.out, width=100, no_color=True, highlight=False)
        self.inner = type(self).scripted(io.StringIO("\n".join(self.lines) + "\n"), console)

    def ask(self, prompt: Any) -> Reply:
        self.prompts.append(prompt)
        self.clock.advance(next(self.seconds, 1.0))
        return self.inner.ask(prompt)

    def show_check(self, prompt: Any, check: QuestionCheck) -> None:
        self.inner.show_check(prompt, check)

    def show_time_up(self) -> None:
        self.inner.show_time_up()

    @property
    def text(self) -> str:
        return self.out.getvalue()
