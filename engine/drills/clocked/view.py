"""What the timed and the rapid-fire drill show alike: the time left in a question's heading, the
two ways of reading a reply, and "time is up".

Each drill has two front ends built on these (`engine.drills.timed.view`,
`engine.drills.rapid.view`): a scripted one (one line per answer from standard input, no
colours, no pauses; an empty line or the end of input stops) and an interactive one (rich, with
the time left live below the line the learner types, `clocked.countdown`).
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

from engine.drills.clocked.countdown import LineReader, TerminalCountdown, clock_text
from engine.drills.clocked.run import Control, Reply, reply_from
from engine.ui.literal import literal, plain
from engine.ui.script_line import read_script_line


def time_left(left: float, *, warn_below: float, alarm_below: float) -> tuple[str, str]:
    """`⏱ m:ss left` and its style: green, then yellow below `warn_below` s, then bold red."""
    style = "green" if left > warn_below else ("yellow" if left > alarm_below else "bold red")
    return f"⏱ {clock_text(left)} left", style


def title_line(title: str, set_name: str) -> Text:
    """The drill's title and set, as the interactive front ends open."""
    return Text.assemble(literal(title, "bold"), f" · set {set_name}")


class ScriptedClockedFrontend:
    """One line per answer from standard input, printed plainly."""

    def __init__(self, stdin: TextIO | None = None, console: Console | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.console = console or Console(highlight=False, width=80, no_color=True)

    def _begin(self, title: str, set_name: str, what: str) -> None:
        self.console.print(f"{plain(title)} · set {set_name} · {what}", markup=False)

    def _show(self, heading: Text, text: str) -> None:
        self.console.print(heading.plain, markup=False)
        self.console.print(literal(text))

    def _read_line(self) -> str:
        return read_script_line(self.stdin, sys.stderr)

    def _reply(self) -> Reply:
        """The next line as a reply; an empty line or the end of input stops the drill."""
        line = self._read_line()
        if not line.strip():
            return Control.STOP
        return reply_from(line.strip())

    def _show_line(self, line: Text) -> None:
        self.console.print(line.plain, markup=False, soft_wrap=True)

    def show_time_up(self) -> None:
        self.console.print("time is up")


class InteractiveClockedFrontend:
    """Rich output; the time left before every prompt and live while the learner types."""

    def __init__(self, console: Console, countdown: TerminalCountdown | None = None) -> None:
        self.console = console
        self.countdown = countdown or TerminalCountdown(console)

    def _show(self, heading: Text, text: str) -> None:
        self.console.print()
        self.console.print(heading)
        self.console.print(literal(text))

    def _reply(self, read: LineReader, nudge: str | None = None) -> Reply:
        """The next non-empty line `read` gives as a reply (an empty one shows `nudge`, if any,
        and waits on); the end of input stops the drill."""
        while True:
            try:
                text = read("›").strip()
            except EOFError:
                return Control.STOP
            if text:
                return reply_from(text)
            if nudge:
                self.console.print(nudge)

    def show_time_up(self) -> None:
        self.console.print("[bold red]time is up[/]")
