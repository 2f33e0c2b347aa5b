"""The scripted front end: one line per question from standard input, plain text out.

Used when standard input is not a terminal (docs/spec.md, "Scripted use"): no pauses, an empty line
or end of input ends the session, and a line that is no valid rating or choice counts as Again.
With confidence on (`--confidence`), a typed answer is followed by one more line, `sure` or
`unsure` (`s`/`u`); an empty line there ends the session after saving the answer.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import textwrap
import time
from typing import TextIO

from engine.cards import Item
from engine.schedule import Grade
from engine.session import (
    Outcome,
    Question,
    ReviewSession,
    asks_again,
    suggested_grade,
)
from engine.ui.describe import interval, shown_answer, verdict_line
from engine.ui.literal import plain
from engine.ui.loop import Action, Answered, End, GradedInterrupt, Undo
from engine.ui.prompt_text import plain_text
from engine.ui.script_line import read_script_line
from engine.verdict import Verdict

# After this many unreadable lines in a row, a typed question counts as Again (docs/spec.md).
UNREADABLE_TRIES = 3


def _reason(verdict: Verdict) -> str:
    text = " ".join(verdict.feedback.split())
    return text if text.startswith("could not") else f"could not read this: {text}"


SURE_WORDS = {"s": True, "sure": True, "u": False, "unsure": False}


def text_width() -> int:
    """The width prose wraps at: the terminal's (or $COLUMNS), 80 when there is none."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


class ScriptedFrontend:
    def __init__(
        self,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
        err: TextIO | None = None,
        *,
        confidence: bool = False,
        width: int | None = None,
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.confidence = confidence
        self.width = width or text_width()
        self._confident_miss = False

    def _plain(self, text: str) -> str:
        return plain_text(text, self.width)

    def _print(self, text: str = "") -> None:
        # A bank's or a learner's text may hold terminal escapes: shown as \\xNN, never run.
        print(plain(text), file=self.out, flush=True)

    def ask(self, question: Question, session: ReviewSession) -> Action:
        item = question.item
        self._print(f"[{question.number}] {item.id} ({item.kind}, {question.phase.word})")
        self._print(self._plain(item.prompt))
        for n, option in enumerate(question.choices or [], start=1):
            self._print(textwrap.fill(f"  {n}. {option}", self.width, subsequent_indent="     "))
        if item.self_rated:
            self._print("rate your recall: 1 again, 2 hard, 3 good, 4 easy")
        started = time.monotonic()
        unreadable = 0
        graded, verdict = Grade.AGAIN, None
        hinted = False
        hints_given = 0
        while True:
            line = read_script_line(self.stdin, self.err)
            text = line.strip()
            if not text:
                return End()
            if text == ":quit":
                return End()
            if text == ":undo":
                if session.can_undo():
                    return Undo()
                self._print("nothing to undo")
                continue
            if text == ":hint":
                shown = item.hint_after(hints_given)  # each :hint gives the next one
                hints_given += 1
                self._print(self._plain(f"hint: {shown or 'no hint for this one'}"))
                hinted = hinted or bool(shown)
                continue
            graded, verdict = session.grade(question, text)
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
        sure, last = None, False
        if self.confidence and not item.self_rated:
            try:
                sure, last = self._read_sure()
            except KeyboardInterrupt:
                fallback = suggested_grade(graded, hinted=hinted)
                raise GradedInterrupt(Answered(fallback, text, verdict, duration)) from None
        grade = suggested_grade(graded, hinted=hinted, sure=sure)
        if verdict is not None:
            # Graded already: an output closed now must not lose the answer, so the error
            # waits for the next line printed, after the answer is saved.
            with contextlib.suppress(BrokenPipeError):
                self._print(self._plain(verdict_line(verdict)))
        self._confident_miss = sure is True and graded == Grade.AGAIN
        return Answered(grade, text, verdict, duration, sure=sure, last=last)

    def _read_sure(self) -> tuple[bool | None, bool]:
        """(confidence, whether the session ends): one line, `sure` or `unsure`."""
        self._print("sure or unsure? (s/u)")
        text = read_script_line(self.stdin, self.err).strip().lower()
        if not text:
            return None, True
        if text not in SURE_WORDS:
            self._note(f"{text!r} is neither sure nor unsure; confidence not recorded")
            return None, False
        return SURE_WORDS[text], False

    def _note(self, message: str) -> None:
        print(plain(f"note: {message}"), file=self.err, flush=True)

    def show_outcome(self, outcome: Outcome, session: ReviewSession) -> None:
        item = outcome.item
        shown = shown_answer(item).strip()
        # A one-line answer follows "answer:"; a laid-out one (a list) starts below it.
        self._print(self._plain(f"answer: {shown}" if "\n" not in shown else f"answer:\n{shown}"))
        if item.explanation:
            self._print(self._plain(item.explanation))
        if self._confident_miss:
            # The errors made with confidence are the ones best corrected: the hint too, and
            # the card comes back in a moment.
            if item.hint:
                self._print(self._plain(f"hint: {item.hint}"))
            self._print("you were sure: this card comes back in a moment")
            self._confident_miss = False
        rated = f"rated {outcome.grade.name.lower()}"
        if session.cram:
            self._print(f"{rated} (cram: schedule unchanged)")
        elif outcome.suspended:
            self._print(
                self._plain(
                    f"{rated}; suspended: {item.id} has been missed {outcome.after.fails} times, "
                    "so it leaves the daily reviews; reread it or rewrite it, then bring it back "
                    f"with `attnquiz unsuspend {session.qset.name} {item.id}`"
                )
            )
        else:
            assert outcome.wait is not None
            self._print(f"{rated}; next review in {interval(outcome.wait)}")
        if outcome.became_leech and not outcome.suspended:
            self._print(
                f"leech: {item.id} has been missed {outcome.after.fails} times; "
                "reread the explanation or rewrite the card"
            )
        self._print()

    def show_undo(self, item: Item | None) -> None:
        if item is None:
            self._print("cannot undo: that card was reviewed elsewhere since")
        else:
            self._print(f"undone: {item.id}")
        self._print()

    def show_retry(self, question: Question) -> None:
        self._print(f"answer taken back: {question.item.id}")
        self._print()

    def show_saved_on_interrupt(self, outcome: Outcome) -> None:
        self._print(f"saved: {outcome.item.id} rated {outcome.grade.name.lower()} (suggested)")
