"""The drill front end: one typed line per step, plain text when scripted, rich on a terminal.

Scripted mode (standard input is not a terminal) reads one line per step: the step itself, or
for a self-rated step the rating. An empty line or end of input ends the session; there are no
pauses. `:hint`, `:skip` (show the expected step) and `:quit` work in both modes.
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from engine.drills.model import Drill, DrillStep
from engine.drills.runner import DrillRun, Reply
from engine.mathtext import pretty_math
from engine.schedule import Grade
from engine.ui.literal import literal, plain
from engine.ui.script_line import read_script_line

COMMANDS = ":hint shows a hint, :skip shows the expected step, :quit ends the session"
RATING_PROMPT = "rate it: 1 again, 2 hard, 3 good, 4 easy"


class EndOfSession(Exception):
    """The learner ended the session (`:quit`, an empty line or end of input when scripted)."""


class DrillTerminal:
    def __init__(
        self,
        console: Console | None = None,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.console = console  # None: scripted
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    # -- talking ---------------------------------------------------------------------------
    def say(self, text: str = "", style: str | None = None) -> None:
        if self.console is None:
            print(plain(text), file=self.out, flush=True)
        else:
            self.console.print(literal(text, style or ""))

    def note(self, message: str) -> None:
        print(f"note: {plain(message)}", file=self.err, flush=True)

    def read(self, label: str) -> str:
        """One line; raises EndOfSession on `:quit`, and when scripted on an empty line or EOF."""
        while True:
            if self.console is None:
                text = read_script_line(self.stdin, self.err).strip()
                if not text:
                    raise EndOfSession
            else:
                try:
                    text = self.console.input(f"[dim]{escape(label)}[/] › ").strip()
                except EOFError:
                    raise EndOfSession from None
                if not text:
                    continue
            if text in {":q", ":quit"}:
                raise EndOfSession
            return text

    # -- one drill -------------------------------------------------------------------------
    def run(self, run: DrillRun, number: int, total: int) -> None:
        """Take the learner through the drill; raises EndOfSession when they stop early."""
        drill = run.drill
        self.introduce(drill, number, total)
        while not run.finished:
            step = run.step
            self.say(f"step {run.index + 1}/{len(drill.steps)}: {step.ask.strip()}", "bold")
            if step.checked:
                self.checked_step(run)
            else:
                self.self_rated_step(run, step)
        self.say(f"result: {pretty_math(drill.target.strip())}", "green")

    def introduce(self, drill: Drill, number: int, total: int) -> None:
        self.say()
        self.say(f"drill {number}/{total}: {drill.id} · {drill.title}", "bold blue")
        self.say(f"goal: {drill.goal.strip()}")
        for line in drill.assumptions.stated:
            self.say(f"assume: {line.strip()}")
        if drill.start is not None:
            self.say(f"start from: {pretty_math(drill.start)}")
        if self.console is not None:
            self.say(COMMANDS, "dim")

    def checked_step(self, run: DrillRun) -> None:
        step = run.step
        text = self.read("your next line (:hint :skip :quit)")
        if text in {":h", ":hint"}:
            self.say(f"hint: {run.hint().strip()}", "yellow")
            return
        if text in {":s", ":skip"}:
            self.say(f"expected: {pretty_math(run.reveal())}", "magenta")
            self.explain(step)
            return
        self.show_reply(run, step, run.answer(text))

    def show_reply(self, run: DrillRun, step: DrillStep, reply: Reply) -> None:
        verdict = reply.verdict
        if verdict.interpreted_as:
            self.say(f"interpreted as: {verdict.interpreted_as}", "dim")
        if reply.done and reply.revealed is None:
            skipped = reply.done[:-1]
            self.say(verdict.message or "correct", "green")
            if skipped:
                numbers = ", ".join(str(n + 1) for n in skipped)
                self.say(f"skipped: step {numbers} (your line follows and gets there)", "green")
            self.explain(run.drill.steps[reply.done[-1]])
            return
        self.say(f"not yet: {verdict.message or 'this is not the step asked for'}", "red")
        if reply.hint is not None:
            self.say(f"hint: {reply.hint.strip()}", "yellow")
        if reply.revealed is not None:
            self.say(f"expected: {pretty_math(reply.revealed)} (go on from there)", "magenta")
            self.explain(step)

    def self_rated_step(self, run: DrillRun, step: DrillStep) -> None:
        if self.console is None:
            # Scripted: the one line of a self-rated step is its rating (docs/spec.md).
            self.say(f"(self-rated) write it for yourself, then {RATING_PROMPT}")
            text = self.read("rating")
            grade = Grade.parse(text)
            if grade is None:
                self.note(
                    f"{text!r} is not a rating (1-4 or again/hard/good/easy); counted as again"
                )
                grade = Grade.AGAIN
            self.say(f"expected: {step.expect.strip()}", "magenta")
        else:
            text = self.read("write your answer (:hint :skip :quit)")
            if text in {":h", ":hint"}:
                self.say(f"hint: {run.hint().strip()}", "yellow")
                return
            self.say(f"expected: {step.expect.strip()}", "magenta")
            if text in {":s", ":skip"}:
                run.reveal()
                self.explain(step)
                return
            grade = self.ask_rating()
        run.rate(grade)
        self.explain(step)

    def ask_rating(self) -> Grade:
        while (grade := Grade.parse(self.read(RATING_PROMPT))) is None:
            self.say("type 1, 2, 3 or 4", "red")
        return grade

    def explain(self, step: DrillStep) -> None:
        if step.explain:
            self.say(step.explain.strip(), "cyan")
