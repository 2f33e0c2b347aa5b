"""What the learner sees of a timed drill while it runs: the countdown and the questions.

Two front ends share one interface (`TimedFrontend` in `engine.drills.timed.run`) and the
clocked drills' common parts (`engine.drills.clocked.view`): the interactive
one (rich, a live countdown while input waits, `$EDITOR` for the code) and the scripted one (one
line per answer, code until a line with only `.`, no pauses). The results are `results`.
"""

from __future__ import annotations

import os

from rich.text import Text

from engine.drills.clocked.countdown import LineReader, clock_text
from engine.drills.clocked.run import Control, QuestionCheck, Reply, reply_from
from engine.drills.clocked.view import (
    InteractiveClockedFrontend,
    ScriptedClockedFrontend,
    time_left,
    title_line,
)
from engine.drills.timed.file import TimedDrill
from engine.drills.timed.run import Prompt
from engine.errors import UsageError
from engine.ui.literal import plain

END_OF_CODE = "."
EDITOR_TEMPLATE = (
    "# Write the function below, save and close the editor; numpy is imported as np.\n"
    "# Lines starting with '# ' at the top are ignored.\n\n"
)


class ScriptedTimedFrontend(ScriptedClockedFrontend):
    """One line per answer from standard input; the code is every line up to a lone `.`."""

    def begin(self, drill: TimedDrill) -> None:
        what = f"{clock_text(drill.limit_seconds)} for {len(drill.parts)} parts"
        self._begin(drill.title, drill.set_name, what)

    def ask(self, prompt: Prompt) -> Reply:
        self._show(_heading(prompt), prompt.text)
        if prompt.question.code is not None:
            self.console.print(f"(end the code with a line containing only {END_OF_CODE})")
            return self._code()
        return self._reply()

    def _code(self) -> Reply:
        lines: list[str] = []
        while True:
            line = self._read_line()
            if not line or line.rstrip("\n") == END_OF_CODE:
                break
            if not lines and not line.strip():
                return Control.STOP
            if not lines and line.strip().startswith(":"):
                return reply_from(line)
            lines.append(line.rstrip("\n"))
        return "\n".join(lines) if lines else Control.STOP

    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None:
        self._show_line(_check_line(check))


class InteractiveTimedFrontend(InteractiveClockedFrontend):
    """Rich output; the time left before every prompt and live while the learner types;
    `$EDITOR` for the code if set."""

    def begin(self, drill: TimedDrill) -> None:
        self.console.print(title_line(drill.title, drill.set_name))
        self.console.print(
            f"{len(drill.parts)} parts in {clock_text(drill.limit_seconds)}. A wrong answer can be "
            "tried again while time remains; :skip moves on, :quit ends the drill."
        )

    def ask(self, prompt: Prompt) -> Reply:
        self._show(_heading(prompt), prompt.text)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if prompt.question.code is not None and editor:
            try:
                return _edit(editor) or Control.SKIP  # the editor has the screen: no countdown
            except UsageError as exc:  # no such editor here: the code is typed instead
                self.console.print(Text(str(exc), style="yellow"))
        words = f"part {prompt.part_number}/{prompt.parts_total}"
        with self.countdown.waiting(prompt.remaining_seconds, words) as read:
            if prompt.question.code is not None:
                return self._code(read)
            return self._reply(read, nudge="[dim]type your answer, :skip or :quit[/]")

    def _code(self, read: LineReader) -> Reply:
        self.console.print(f"[dim]type the code; a line with only {END_OF_CODE} ends it[/]")
        lines: list[str] = []
        while True:
            try:
                line = read("…")
            except EOFError:
                break
            if line.strip() == END_OF_CODE:
                break
            if not lines and line.strip().startswith(":"):
                return reply_from(line)
            lines.append(line)
        return "\n".join(lines) if any(line.strip() for line in lines) else Control.SKIP

    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None:
        self.console.print(_check_line(check))
        if check.valid and not check.correct:
            self.console.print("[dim]try again, or :skip[/]")


def _edit(editor: str) -> str:
    """The code the learner wrote in `editor` (on a `.py` file with the template), without the
    template's comment lines at the top."""
    from engine.ui.editor import run_editor

    text = run_editor(EDITOR_TEMPLATE, editor=editor, extension=".py") or ""
    lines = text.splitlines()
    while lines and (lines[0].startswith("# ") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def make_frontend(
    drill: TimedDrill, *, interactive: bool
) -> ScriptedTimedFrontend | InteractiveTimedFrontend:
    if not interactive:
        return ScriptedTimedFrontend()
    from engine.ui.console import make_console

    return InteractiveTimedFrontend(make_console())


def _heading(prompt: Prompt) -> Text:
    left = prompt.remaining_seconds
    heading = Text.assemble(
        (f"[{prompt.part_number}/{prompt.parts_total}] {plain(prompt.part.title)}", "bold"),
        " · ",
        time_left(left, warn_below=60, alarm_below=20),
    )
    if prompt.attempt > 1:
        heading.append(f" · try {prompt.attempt}", style="dim")
    return heading


def _check_line(check: QuestionCheck) -> Text:
    if not check.valid:
        return Text(f"? not graded · {plain(check.feedback)} · type it again", "yellow")
    line = Text("✓ right", "green") if check.correct else Text("✗ not yet", "red")
    if check.interpreted_as:
        line.append(f" · read as {plain(check.interpreted_as)}")
    if check.feedback and not check.correct:
        line.append(f" · {plain(check.feedback)}")
    return line
