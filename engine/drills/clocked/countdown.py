"""The time limit while the learner types: a prompt_toolkit prompt with the time left live.

At a terminal each line is read by a prompt_toolkit `PromptSession` whose bottom toolbar shows
`⏱ m:ss left · words`, redrawn every `TICK_SECONDS` (`refresh_interval`). When the deadline
passes, a task of the prompt's own application ends it with `TimeUp`; Ctrl-C ends it with
`KeyboardInterrupt` and Ctrl-D on an empty line with `EOFError`, as `input()` does. Where the
terminal cannot show a countdown (output not a terminal, a dumb one, too few rows) lines are
read plainly and the drill's core refuses a late answer once it comes.

prompt_toolkit is imported only when a live prompt is first needed: the scripted front ends and
`attnquiz --help` never load it.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from engine.drills.clocked.run import TimeUp

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import Application

TICK_SECONDS = 0.25
# The toolbar's style by time left (more than 60 s, more than 20 s, less); no colour with NO_COLOR.
LEVELS = ((60.0, "ok"), (20.0, "low"), (0.0, "out"))
STYLE = {
    "bottom-toolbar": "noreverse",
    "countdown.ok": "ansigreen",
    "countdown.low": "ansiyellow",
    "countdown.out": "ansired bold",
    "marker": "ansibrightblack",
}

LineReader = Callable[[str], str]
"""Reads one line after the marker it is given (`›`, `…`); TimeUp, KeyboardInterrupt, EOFError."""


def clock_text(seconds: float) -> str:
    """`m:ss`, to the nearest second."""
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def status_text(left: float, words: str) -> str:
    """What the toolbar says: `⏱ 1:23 left · words`."""
    # Rounded up, so that 0:00 shows only when the time is up.
    return f"⏱ {clock_text(math.ceil(left))} left" + (f" · {words}" if words else "")


def status_level(left: float) -> str:
    """`ok`, `low` or `out`: how the toolbar is coloured with `left` seconds to go."""
    return next(level for limit, level in LEVELS if left > limit or limit == 0.0)


class TerminalCountdown:
    """Lines read with the time left live where the terminal can show it; plainly elsewhere."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.clock = clock
        self._session: PromptSession[str] | None = None

    @property
    def live(self) -> bool:
        return (
            self.console.is_terminal
            and not self.console.is_dumb_terminal
            and sys.stdin.isatty()
            and shutil.get_terminal_size().lines >= 4
        )

    @contextlib.contextmanager
    def waiting(self, remaining: float, words: str = "") -> Iterator[LineReader]:
        """A reader of the lines typed within the next `remaining` seconds, shown live with
        `words` after the time left; a line still unfinished at the deadline raises `TimeUp`."""
        if not self.live:
            yield lambda marker: self.console.input(f"[dim]{escape(marker)}[/] ")
            return
        deadline = self.clock() + remaining
        yield lambda marker: self._read(marker, deadline, words)

    def _read(self, marker: str, deadline: float, words: str) -> str:
        import asyncio

        from prompt_toolkit.application import get_app
        from prompt_toolkit.formatted_text import FormattedText

        if deadline - self.clock() <= 0:
            raise TimeUp

        def toolbar() -> FormattedText:
            left = max(0.0, deadline - self.clock())
            style = f"class:countdown.{status_level(left)}"
            return FormattedText([(style, status_text(left, words))])

        async def end_at_deadline(app: Application[str]) -> None:
            await asyncio.sleep(max(0.0, deadline - self.clock()))
            if not app.is_done:
                app.exit(exception=TimeUp())

        def start_timer() -> None:  # in the prompt's event loop, as the prompt starts
            app = get_app()
            app.create_background_task(end_at_deadline(app))

        return self.session().prompt(
            FormattedText([("class:marker", f"{marker} ")]),
            bottom_toolbar=toolbar,
            refresh_interval=TICK_SECONDS,
            pre_run=start_timer,
        )

    def session(self) -> PromptSession[str]:
        """One session for the drill, so that ↑ recalls earlier answers."""
        if self._session is None:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.output import ColorDepth
            from prompt_toolkit.styles import Style

            plain = self.console.no_color or self.console.color_system is None
            self._session = PromptSession(
                style=Style.from_dict(STYLE),
                color_depth=ColorDepth.MONOCHROME if plain else None,
            )
        return self._session
