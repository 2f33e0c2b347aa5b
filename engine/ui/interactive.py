"""The interactive front end: rich panels, a reveal step, rating previews, undo and hints.

What the rating keys show is what is saved: their intervals come from `session.preview`, and the
chosen rating is committed at that preview's moment. Ctrl-C after an answer was graded saves it
with the suggested rating (GradedInterrupt), and says so.
"""

from __future__ import annotations

import sys
import time

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from engine.cards import Item
from engine.cards.exercise import ExerciseItem
from engine.exercise_attempts import edit
from engine.schedule import Grade
from engine.session import (
    Outcome,
    Preview,
    Question,
    ReviewSession,
    asks_again,
    suggested_grade,
)
from engine.ui.describe import COMMANDS_HELP, interval, shown_answer, verdict_line
from engine.ui.literal import literal
from engine.ui.loop import Action, Answered, End, GradedInterrupt, Retry, Undo
from engine.ui.prompt_text import reflow, render_prompt
from engine.verdict import Verdict

GRADE_STYLE = {Grade.AGAIN: "red", Grade.HARD: "yellow", Grade.GOOD: "green", Grade.EASY: "cyan"}
SURE_KEYS = {"s": True, "y": True, "u": False, "n": False}


class InteractiveFrontend:
    def __init__(self, console: Console, *, confidence: bool = False) -> None:
        self.console = console
        self.confidence = confidence
        self._shown = 0
        self._last_shown: str | None = None

    # -- asking -----------------------------------------------------------------------------
    def ask(self, question: Question, session: ReviewSession) -> Action:
        item = question.item
        queued, learning = session.remaining()
        title = f"[bold]{item.id}[/] · {item.kind} · {question.phase.word}"
        counts = f"{queued} left" + (f" · {learning} learning" if learning else "")
        body: list[RenderableType] = [render_prompt(item.prompt)]
        for letter, option in zip("ABCDEFGH", question.choices or [], strict=False):
            body.append(Text.assemble(("  " + letter + ". ", "bold"), option))
        # Cards are set apart by a rule; a card shown twice in a row says why.
        self.console.print()
        if self._shown:
            self.console.print(Rule(f"card {question.number}", style="dim"))
        if self._last_shown == item.id:
            self.console.print(Text(f"{item.id} again: no other card is waiting", style="dim"))
        self._shown += 1
        self._last_shown = item.id
        self.console.print(
            Panel(
                Group(*body),
                title=title,
                subtitle=counts,
                title_align="left",
                subtitle_align="right",
                border_style="blue",
            )
        )
        started = time.monotonic()
        reading: tuple[Grade, Verdict | None] = (Grade.AGAIN, None)
        hint = "Enter to reveal" if item.self_rated else "your answer"
        hinted = False
        attempt = None
        if isinstance(item, ExerciseItem):
            attempt = session.exercise_file(item)
            self.console.print(literal(f"your file: {attempt}", style="dim"))
            hint = "Enter to write it in your editor, or a file's path"
        hints_given = 0
        text = ""
        while True:
            text = self.console.input(f"[dim]{hint} (:hint :undo :quit)[/] › ").strip()
            if text in {":q", ":quit"}:
                return End()
            if text in {":u", ":undo"}:
                if session.can_undo():
                    return Undo()
                self.console.print("[yellow]nothing to undo[/]")
                continue
            if text in {":h", ":hint"}:
                shown = item.hint_after(hints_given)  # each :hint gives the next one
                hints_given += 1
                hint_text = reflow(shown) if shown else "no hint for this one"
                self.console.print(Text.assemble(("hint: ", "yellow"), hint_text))
                hinted = hinted or bool(shown)
                continue
            if text.startswith(":"):
                self.console.print(f"[dim]{COMMANDS_HELP}[/]")
                continue
            if text and not item.self_rated and attempt is None:
                reading = session.grade(question, text)
                if asks_again(item, reading[1]):
                    # Not graded and not logged: say what could not be read and ask again.
                    assert reading[1] is not None
                    self.console.print(Text(verdict_line(reading[1]), style="yellow"))
                    self.console.print("[dim]nothing was recorded; type the answer again[/]")
                    continue
            break
        if attempt is not None and not text:
            edit(attempt)  # grades what the learner saved once the editor closes
            text = str(attempt)
        if attempt is not None:  # an exercise is graded from its file, as its card says
            reading = session.grade(question, text)
        duration = int((time.monotonic() - started) * 1000)
        if item.self_rated:
            self._reveal(item, full=False)
            preview = session.preview(question)
            try:
                grade = self._choose_grade(question, session, preview, suggested=None)
            except KeyboardInterrupt:
                self.console.print(f"\n[yellow]not saved:[/] {item.id} was not rated yet")
                raise
            if isinstance(grade, Undo | End | Retry):
                return grade
            return Answered(grade, text or None, None, duration, at=preview.at)
        graded, verdict = reading if text else (Grade.AGAIN, None)
        sure = None
        if self.confidence and text:
            # Asked before the verdict is shown; the answer is graded already, so Ctrl-C here
            # saves it as after any graded answer.
            try:
                sure = self._ask_sure()
            except KeyboardInterrupt:
                fallback = suggested_grade(graded, hinted=hinted)
                raise GradedInterrupt(
                    Answered(fallback, text, verdict, duration, at=session.clock())
                ) from None
        suggested = suggested_grade(graded, hinted=hinted, sure=sure)
        if verdict is not None:
            style = "green" if verdict.correct else "red"
            self.console.print(Text(verdict_line(verdict), style=style))
        else:
            self.console.print("[red]no answer[/]")
        if suggested != graded:
            why = "after a hint" if hinted else "as you were unsure"
            self.console.print(f"[dim]suggested: {suggested.name.lower()} ({why})[/]")
        confident_miss = sure is True and graded == Grade.AGAIN
        self._reveal(item, full=confident_miss)
        preview = session.preview(question)
        answered = Answered(suggested, text or None, verdict, duration, at=preview.at, sure=sure)
        try:
            chosen = self._choose_grade(question, session, preview, suggested=suggested)
        except KeyboardInterrupt:
            raise GradedInterrupt(answered) from None
        if isinstance(chosen, Undo | End | Retry):
            return chosen
        return Answered(chosen, text or None, verdict, duration, at=preview.at, sure=sure)

    def _ask_sure(self) -> bool | None:
        """One key: s(ure) or u(nsure); Enter (or anything else) leaves it unsaid."""
        prompt = "[dim]sure? s sure · u unsure · Enter skip[/] › "
        if sys.stdin.isatty() and self.console.file is sys.stdout:
            key = _read_key(self.console, prompt)
        else:
            key = self.console.input(prompt).strip()[:1]
        return SURE_KEYS.get(key.lower())

    def _reveal(self, item: Item, *, full: bool) -> None:
        parts: list[RenderableType] = [Text.assemble(("answer: ", "bold"), shown_answer(item))]
        if item.explanation:
            # A confident wrong answer is the one best corrected: the explanation in full view,
            # with the hint, and the card returns in a few questions.
            parts.append(render_prompt(item.explanation, style="" if full else "dim"))
        if full:
            if item.hint:
                parts.append(Text.assemble(("hint: ", "yellow"), reflow(item.hint)))
            parts.append(Text("you were sure: this card comes back in a moment", style="yellow"))
        self.console.print(Panel(Group(*parts), border_style="yellow" if full else "green"))

    def _choose_grade(
        self, question: Question, session: ReviewSession, preview: Preview, suggested: Grade | None
    ) -> Grade | Undo | End | Retry:
        options = []
        for grade in Grade:
            label = f"{int(grade)} {grade.name.lower()}"
            wait = preview.wait(grade)
            if grade in preview.after and preview.after[grade].suspended:
                label += " (suspended: a leech)"
            elif wait is not None:
                label += f" ({interval(wait)})"
            style = GRADE_STYLE[grade] + (" bold reverse" if grade == suggested else "")
            options.append(f"[{style}]{label}[/]")
        default = f", Enter = {suggested.name.lower()}" if suggested else ""
        self.console.print("  ".join(options))
        while True:
            text = self.console.input(f"[dim]rate 1-4{default} (:undo :quit)[/] › ").strip()
            if not text and suggested is not None:
                return suggested
            if text in {":u", ":undo"}:
                # Nothing was saved for this question yet: undo takes back the answer just
                # typed, and the same card is asked again.
                return Retry()
            if text in {":q", ":quit"}:
                return End()
            parsed = Grade.parse(text)
            if parsed is not None:
                return parsed
            self.console.print("[yellow]type 1, 2, 3 or 4 (again, hard, good, easy)[/]")

    # -- after answering ----------------------------------------------------------------------
    def show_outcome(self, outcome: Outcome, session: ReviewSession) -> None:
        if session.cram:
            self.console.print("[dim]cram: schedule unchanged[/]")
        elif outcome.suspended:
            self.console.print(
                f"[bold yellow]suspended:[/] {outcome.item.id} was missed {outcome.after.fails} "
                "times, so it leaves the daily reviews; reread it, rewrite it in your own words, "
                f"then bring it back with `attnquiz unsuspend {session.qset.name} "
                f"{outcome.item.id}`"
            )
            return
        elif outcome.wait is not None:
            self.console.print(f"[dim]next review in {interval(outcome.wait)}[/]")
        if outcome.became_leech:
            self.console.print(
                f"[bold yellow]leech:[/] missed {outcome.after.fails} times; reread the "
                "explanation, or rewrite the card in your own words"
            )

    def show_undo(self, item: Item | None) -> None:
        if item is None:
            self.console.print("[yellow]cannot undo: that card was reviewed elsewhere since[/]")
        else:
            self.console.print(f"[yellow]undone:[/] {item.id} comes again")

    def show_retry(self, question: Question) -> None:
        self.console.print(f"[yellow]answer taken back:[/] {question.item.id} comes again")
        self._last_shown = None

    def show_saved_on_interrupt(self, outcome: Outcome) -> None:
        self.console.print(
            f"\n[yellow]saved:[/] {outcome.item.id} rated {outcome.grade.name.lower()} "
            "(the suggested rating)"
        )


def _read_key(console: Console, prompt: str) -> str:
    """One key press from the terminal, without Enter (Ctrl-C still interrupts)."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        # TCSANOW, not the default TCSAFLUSH: a key typed ahead of the prompt is kept.
        tty.setcbreak(fd, termios.TCSANOW)
        # Written straight to the terminal, not through rich's buffer, which Ctrl-C arriving
        # mid-print would leave full and print a second time.
        console.file.write(Text.from_markup(prompt).plain)
        console.file.flush()
        key = sys.stdin.read(1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    console.print(key if key.isprintable() else "")
    return key
