"""What the learner sees of a timed drill: the countdown, the questions, and the results table.

Two front ends share one interface (`TimedFrontend` in `engine.drills.timed`): the interactive one
(rich, the remaining time before every prompt, `$EDITOR` for the code) and the scripted one (one
line per answer, code until a line with only `.`, no pauses).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from engine.bank.model import QuestionSet
from engine.drills.timed import (
    Comparison,
    Control,
    DrillRun,
    PartStatus,
    Prompt,
    QuestionCheck,
    Reply,
    TimedDrill,
    model_answer,
)

END_OF_CODE = "."
SPARKS = "▁▂▃▄▅▆▇█"
STATUS_WORDS = {
    PartStatus.SKIPPED: "skipped",
    PartStatus.TIMED_OUT: "time up",
    PartStatus.STOPPED: "stopped",
    PartStatus.NOT_REACHED: "not reached",
}
EDITOR_TEMPLATE = (
    "# Write the function below, save and close the editor; numpy is imported as np.\n"
    "# Lines starting with '# ' at the top are ignored.\n\n"
)


def clock_text(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def sparkline(values: list[float]) -> str:
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return "".join(SPARKS[round((v - low) / span * (len(SPARKS) - 1))] for v in values)


def _reply_from(text: str) -> Reply:
    command = text.strip()
    if command in {":skip", ":s"}:
        return Control.SKIP
    if command in {":quit", ":q"}:
        return Control.STOP
    return text


class ScriptedTimedFrontend:
    """One line per answer from standard input; the code is every line up to a lone `.`."""

    def __init__(self, stdin: TextIO | None = None, console: Console | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.console = console or Console(highlight=False, width=100, no_color=True)

    def begin(self, drill: TimedDrill) -> None:
        self.console.print(
            f"{drill.title} · set {drill.set_name} · {clock_text(drill.limit_seconds)} for "
            f"{len(drill.parts)} parts",
            markup=False,
        )

    def ask(self, prompt: Prompt) -> Reply:
        self.console.print(_heading(prompt).plain, markup=False)
        self.console.print(prompt.text, markup=False)
        if prompt.question.code is not None:
            self.console.print(f"(end the code with a line containing only {END_OF_CODE})")
            return self._code()
        line = self.stdin.readline()
        if not line.strip():
            return Control.STOP
        return _reply_from(line.strip())

    def _code(self) -> Reply:
        lines: list[str] = []
        while True:
            line = self.stdin.readline()
            if not line or line.rstrip("\n") == END_OF_CODE:
                break
            if not lines and not line.strip():
                return Control.STOP
            if not lines and line.strip().startswith(":"):
                return _reply_from(line)
            lines.append(line.rstrip("\n"))
        return "\n".join(lines) if lines else Control.STOP

    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None:
        self.console.print(_check_line(check).plain, markup=False, soft_wrap=True)

    def show_time_up(self) -> None:
        self.console.print("time is up")


class InteractiveTimedFrontend:
    """Rich output; the remaining time before every prompt; `$EDITOR` for the code if set."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def begin(self, drill: TimedDrill) -> None:
        self.console.print(f"[bold]{drill.title}[/] · set {drill.set_name}")
        self.console.print(
            f"{len(drill.parts)} parts in {clock_text(drill.limit_seconds)}. A wrong answer can be "
            "tried again while time remains; :skip moves on, :quit ends the drill."
        )

    def ask(self, prompt: Prompt) -> Reply:
        self.console.print()
        self.console.print(_heading(prompt))
        self.console.print(prompt.text, markup=False)
        if prompt.question.code is not None:
            return self._code()
        while True:
            try:
                text = self.console.input("[dim]›[/] ").strip()
            except EOFError:
                return Control.STOP
            if text:
                return _reply_from(text)
            self.console.print("[dim]type your answer, :skip or :quit[/]")

    def _code(self) -> Reply:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if editor:
            return _edit(editor) or Control.SKIP
        self.console.print(f"[dim]type the code; a line with only {END_OF_CODE} ends it[/]")
        lines: list[str] = []
        while True:
            try:
                line = self.console.input("[dim]…[/] ")
            except EOFError:
                break
            if line.strip() == END_OF_CODE:
                break
            if not lines and line.strip().startswith(":"):
                return _reply_from(line)
            lines.append(line)
        return "\n".join(lines) if any(line.strip() for line in lines) else Control.SKIP

    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None:
        self.console.print(_check_line(check))
        if not check.correct:
            self.console.print("[dim]try again, or :skip[/]")

    def show_time_up(self) -> None:
        self.console.print("[bold red]time is up[/]")


def _edit(editor: str) -> str:
    with tempfile.TemporaryDirectory(prefix="attnquiz-timed-") as folder:
        path = Path(folder) / "attention.py"
        path.write_text(EDITOR_TEMPLATE, encoding="utf-8")
        subprocess.run([*shlex.split(editor), str(path)], check=False)
        text = path.read_text(encoding="utf-8")
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
    style = "green" if left > 60 else ("yellow" if left > 20 else "bold red")
    heading = Text.assemble(
        (f"[{prompt.part_number}/{prompt.parts_total}] {prompt.part.title}", "bold"),
        " · ",
        (f"⏱ {clock_text(left)} left", style),
    )
    if prompt.attempt > 1:
        heading.append(f" · try {prompt.attempt}", style="dim")
    return heading


def _check_line(check: QuestionCheck) -> Text:
    line = Text("✓ right", "green") if check.correct else Text("✗ not yet", "red")
    if check.interpreted_as:
        line.append(f" · read as {check.interpreted_as}")
    if check.feedback and not check.correct:
        line.append(f" · {check.feedback}")
    return line


# -- the results ---------------------------------------------------------------------------------
def show_results(
    frontend: ScriptedTimedFrontend | InteractiveTimedFrontend,
    drill: TimedDrill,
    qset: QuestionSet,
    run: DrillRun,
    earlier: Comparison,
) -> None:
    console = frontend.console
    console.print()
    console.print(results_table(run, earlier))
    console.print(_verdict(run))
    trend = trend_line(earlier)
    if trend is not None:
        console.print(trend)
    for part, result in zip(drill.parts, run.parts, strict=True):
        if result.right:
            continue
        console.print(Text(f"{part.title}:", style="bold"))
        for question in part.questions:
            console.print(Text(_indent(model_answer(qset, question))))


def results_table(run: DrillRun, earlier: Comparison) -> Table:
    table = Table(title="this run against your best", title_justify="left", header_style="bold")
    table.add_column("part")
    table.add_column("this run", justify="right")
    table.add_column("answers", justify="right")
    table.add_column("best before", justify="right")
    for result in run.parts:
        best = earlier.best_parts.get(result.part_id)
        if result.right and result.seconds is not None:
            mine = Text(clock_text(result.seconds), "green")
            if best is not None and result.seconds < best:
                mine.append(" new best", "bold cyan")
        else:
            mine = Text(STATUS_WORDS.get(result.status, str(result.status)), "red")
        table.add_row(
            result.title,
            mine,
            str(result.attempts),
            "—" if best is None else clock_text(best),
        )
    total = Text(clock_text(run.total_seconds), "green" if run.within_limit else "red")
    if (
        run.within_limit
        and earlier.best_total is not None
        and run.total_seconds < earlier.best_total
    ):
        total.append(" new best", "bold cyan")
    best_total = "—" if earlier.best_total is None else clock_text(earlier.best_total)
    table.add_row(Text("overall", "bold"), total, "", best_total)
    return table


def _verdict(run: DrillRun) -> Text:
    right = sum(1 for part in run.parts if part.right)
    if run.within_limit:
        return Text(
            f"all {len(run.parts)} parts right in {clock_text(run.total_seconds)}, within "
            f"{clock_text(run.limit_seconds)}",
            "bold green",
        )
    return Text(
        f"{right} of {len(run.parts)} parts right; the goal is all of them within "
        f"{clock_text(run.limit_seconds)}",
        "bold yellow",
    )


def trend_line(earlier: Comparison) -> Text | None:
    """The total times of the last runs, oldest first; red marks a run not finished in time."""
    if len(earlier.trend) < 2:
        return None
    totals = [seconds for seconds, _ in earlier.trend]
    line = Text(f"last {len(totals)} runs: ")
    for char, (_, ok) in zip(sparkline(totals), earlier.trend, strict=True):
        line.append(char, "green" if ok else "red")
    line.append(f"  {clock_text(totals[0])} → {clock_text(totals[-1])}")
    return line


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
