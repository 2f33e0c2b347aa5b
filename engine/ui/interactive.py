"""The interactive front end: rich panels, a reveal step, rating previews, undo and hints."""

from __future__ import annotations

import time

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from engine.cards import Item
from engine.cards.exercise import ExerciseItem
from engine.exercise_attempts import attempt_file, edit
from engine.schedule import Grade
from engine.session import Outcome, Question, ReviewSession, asks_again, grade_answer
from engine.ui.describe import COMMANDS_HELP, interval, phase_name, shown_answer, verdict_line
from engine.ui.loop import Action, Answered, End, Undo
from engine.ui.prompt_text import reflow, render_prompt
from engine.verdict import Verdict

GRADE_STYLE = {Grade.AGAIN: "red", Grade.HARD: "yellow", Grade.GOOD: "green", Grade.EASY: "cyan"}


class InteractiveFrontend:
    def __init__(self, console: Console) -> None:
        self.console = console
        self._checker_started = False

    # -- asking -----------------------------------------------------------------------------
    def ask(self, question: Question, session: ReviewSession) -> Action:
        item = question.item
        queued, learning = session.remaining()
        title = f"[bold]{item.id}[/] · {item.kind} · {phase_name(question.phase)}"
        counts = f"{queued} left" + (f" · {learning} learning" if learning else "")
        body: list[RenderableType] = [render_prompt(item.prompt)]
        for letter, option in zip("ABCDEFGH", question.choices or [], strict=False):
            body.append(Text.assemble(("  " + letter + ". ", "bold"), option))
        self.console.print()
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
        if not self._checker_started:
            # The checking worker imports SymPy while the learner reads the first question, so
            # grading is instant. `attnquiz quiz` has started it already; this is a no-op then.
            session.checker.start()
            self._checker_started = True
        started = time.monotonic()
        graded: tuple[Grade, Verdict | None] = (Grade.AGAIN, None)
        hint = "Enter to reveal" if item.self_rated else "your answer"
        attempt = None
        if isinstance(item, ExerciseItem):
            attempt = attempt_file(session.store.path.parent, session.qset.name, item)
            self.console.print(Text(f"your file: {attempt}", style="dim"))
            hint = "Enter to write it in your editor, or a file's path"
        hints_given = 0
        text = ""
        while True:
            text = self.console.input(f"[dim]{hint} (:hint :undo :quit)[/] › ").strip()
            if text in {":q", ":quit"}:
                return End()
            if text in {":u", ":undo"}:
                return Undo()
            if text in {":h", ":hint"}:
                steps = item.hint_steps()
                shown = steps[min(hints_given, len(steps) - 1)] if steps else None
                hints_given += 1
                hint_text = reflow(shown) if shown else "no hint for this one"
                self.console.print(Text.assemble(("hint: ", "yellow"), hint_text))
                continue
            if text.startswith(":"):
                self.console.print(f"[dim]{COMMANDS_HELP}[/]")
                continue
            if text and not item.self_rated and attempt is None:
                graded = grade_answer(question, text, session.checker)
                if asks_again(item, graded[1]):
                    # Not graded and not logged: say what could not be read and ask again.
                    assert graded[1] is not None
                    self.console.print(Text(verdict_line(graded[1]), style="yellow"))
                    self.console.print("[dim]nothing was recorded; type the answer again[/]")
                    continue
            break
        if attempt is not None and not text:
            edit(attempt)  # grades what the learner saved once the editor closes
            text = str(attempt)
        if attempt is not None:  # an exercise is graded from its file, as its card says
            graded = grade_answer(question, text, session.checker)
        duration = int((time.monotonic() - started) * 1000)
        if item.self_rated:
            self._reveal(item)
            grade = self._choose_grade(question, session, suggested=None)
            return (
                grade
                if isinstance(grade, Undo | End)
                else Answered(grade, text or None, None, duration)
            )
        grade_hint, verdict = graded if text else (Grade.AGAIN, None)
        if verdict is not None:
            style = "green" if verdict.correct else "red"
            self.console.print(Text(verdict_line(verdict), style=style))
        else:
            self.console.print("[red]no answer[/]")
        self._reveal(item)
        chosen = self._choose_grade(question, session, suggested=grade_hint)
        if isinstance(chosen, Undo | End):
            return chosen
        return Answered(chosen, text or None, verdict, duration)

    def _reveal(self, item: Item) -> None:
        parts: list[RenderableType] = [Text.assemble(("answer: ", "bold"), shown_answer(item))]
        if item.explanation:
            parts.append(render_prompt(item.explanation, style="dim"))
        self.console.print(Panel(Group(*parts), border_style="green"))

    def _choose_grade(
        self, question: Question, session: ReviewSession, suggested: Grade | None
    ) -> Grade | Undo | End:
        now = session.clock()
        card = session.store.card(session.qset.name, question.item.id)
        options = []
        for grade in Grade:
            label = f"{int(grade)} {grade.name.lower()}"
            if not session.cram:
                due = session.scheduling.review(card, grade, now).due
                label += f" ({interval(due - now)})" if due else ""
            style = GRADE_STYLE[grade] + (" bold reverse" if grade == suggested else "")
            options.append(f"[{style}]{label}[/]")
        default = f", Enter = {suggested.name.lower()}" if suggested else ""
        self.console.print("  ".join(options))
        while True:
            text = self.console.input(f"[dim]rate 1-4{default} (:undo :quit)[/] › ").strip()
            if not text and suggested is not None:
                return suggested
            if text in {":u", ":undo"}:
                # Nothing was saved for this question yet: undo goes back one more.
                return Undo()
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
        elif outcome.after.due is not None:
            gap = interval(outcome.after.due - session.clock())
            self.console.print(f"[dim]next review in {gap}[/]")
        if outcome.became_leech:
            self.console.print(
                f"[bold yellow]leech:[/] missed {outcome.after.fails} times; reread the "
                "explanation, or rewrite the card in your own words"
            )

    def show_undo(self, item: Item | None) -> None:
        if item is None:
            self.console.print("[yellow]nothing to undo[/]")
        else:
            self.console.print(f"[yellow]undone:[/] {item.id} comes again")
