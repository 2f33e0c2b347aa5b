"""The scripted front end: one line per question from standard input, plain text out.

Used when standard input is not a terminal (docs/spec.md, "Scripted use"): no pauses, an empty line
or end of input ends the session, and a line that is no valid rating or choice counts as Again.
"""

from __future__ import annotations

import sys
import textwrap
import time
from typing import TextIO

from engine.cards import Item
from engine.schedule import Grade
from engine.session import Outcome, Question, ReviewSession, asks_again, grade_answer
from engine.ui.describe import interval, phase_name, shown_answer, verdict_line
from engine.ui.loop import Action, Answered, End, Undo
from engine.ui.prompt_text import plain_text
from engine.ui.script_line import read_script_line
from engine.verdict import Verdict

# After this many unreadable lines in a row, a typed question counts as Again (SPEC.md).
UNREADABLE_TRIES = 3


def _reason(verdict: Verdict) -> str:
    text = " ".join(verdict.feedback.split())
    return text if text.startswith("could not") else f"could not read this: {text}"


class ScriptedFrontend:
    def __init__(
        self, stdin: TextIO | None = None, out: TextIO | None = None, err: TextIO | None = None
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, question: Question, session: ReviewSession) -> Action:
        item = question.item
        self._print(f"[{question.number}] {item.id} ({item.kind}, {phase_name(question.phase)})")
        self._print(plain_text(item.prompt))
        for n, option in enumerate(question.choices or [], start=1):
            self._print(textwrap.fill(f"  {n}. {option}", 80, subsequent_indent="     "))
        if item.self_rated:
            self._print("rate your recall: 1 again, 2 hard, 3 good, 4 easy")
        started = time.monotonic()
        unreadable = 0
        grade, verdict = Grade.AGAIN, None
        while True:
            line = read_script_line(self.stdin, self.err)
            text = line.strip()
            if not text:
                return End()
            if text == ":quit":
                return End()
            if text == ":undo":
                return Undo()
            if text == ":hint":
                self._print(plain_text(f"hint: {item.hint or 'no hint for this one'}"))
                continue
            grade, verdict = grade_answer(question, text, session.checker)
            if asks_again(item, verdict) and unreadable < UNREADABLE_TRIES - 1:
                # Not graded, not logged: the next line answers the same question again.
                unreadable += 1
                assert verdict is not None
                self._note(f"{_reason(verdict)}; the next line answers this question again")
                continue
            break
        duration = int((time.monotonic() - started) * 1000)
        if item.self_rated and verdict is not None:
            self._note(f"{text!r} is not a rating (1-4 or again/hard/good/easy); counted as again")
            verdict = None
        elif verdict is not None and not verdict.valid and item.kind == "choice":
            self._note(f"{text!r} is not one of the options; counted as a wrong answer")
        elif asks_again(item, verdict):
            self._note(f"{UNREADABLE_TRIES} unreadable answers in a row; counted as again")
        if verdict is not None:
            self._print(plain_text(verdict_line(verdict)))
        return Answered(grade=grade, answer=text, verdict=verdict, duration_ms=duration)

    def _note(self, message: str) -> None:
        print(f"note: {message}", file=self.err, flush=True)

    def show_outcome(self, outcome: Outcome, session: ReviewSession) -> None:
        item = outcome.item
        shown = shown_answer(item).strip()
        # A one-line answer follows "answer:"; a laid-out one (a list) starts below it.
        self._print(plain_text(f"answer: {shown}" if "\n" not in shown else f"answer:\n{shown}"))
        if item.explanation:
            self._print(plain_text(item.explanation))
        if session.cram:
            self._print(f"rated {outcome.grade.name.lower()} (cram: schedule unchanged)")
        else:
            assert outcome.after.due is not None
            gap = outcome.after.due - session.clock()
            self._print(f"rated {outcome.grade.name.lower()}; next review in {interval(gap)}")
        if outcome.became_leech:
            self._print(
                f"leech: {item.id} has been missed {outcome.after.fails} times; "
                "reread the explanation or rewrite the card"
            )
        self._print()

    def show_undo(self, item: Item | None) -> None:
        if item is None:
            self._print("nothing to undo")
        else:
            self._print(f"undone: {item.id}")
        self._print()
