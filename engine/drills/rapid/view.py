"""What the learner sees of a rapid-fire round: each question, right or wrong at once with the
correct shape, and at the end the score, the times and the personal bests.

The scripted front end reads one line per question (an empty line or the end of input ends the
round); the interactive one shows the time left live while the learner types.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from engine.drills.clocked.countdown import clock_text
from engine.drills.clocked.run import DrillRun, PartStatus, QuestionCheck, Reply
from engine.drills.clocked.view import (
    InteractiveClockedFrontend,
    ScriptedClockedFrontend,
    time_left,
    title_line,
)
from engine.drills.rapid.file import RapidDrill
from engine.drills.rapid.rounds import RapidPrompt, RapidQuestion
from engine.ui.literal import literal, plain

RESULT_WORDS = {
    PartStatus.RIGHT: ("✓", "green"),
    PartStatus.WRONG: ("✗", "red"),
    PartStatus.SKIPPED: ("skipped", "yellow"),
    PartStatus.TIMED_OUT: ("time up", "red"),
    PartStatus.STOPPED: ("stopped", "yellow"),
}


def _heading(prompt: RapidPrompt) -> Text:
    left = prompt.remaining_seconds
    return Text.assemble(
        (f"[{prompt.number}/{prompt.total}]", "bold"),
        " ",
        time_left(left, warn_below=30, alarm_below=10),
    )


def _check_line(question: RapidQuestion, check: QuestionCheck) -> Text:
    if not check.valid:  # not graded: the answer is not given away, the question comes again
        return Text(f"? not graded · {plain(check.feedback)} · type it again", "yellow")
    if check.correct:
        return Text("✓ right", "green")
    line = Text("✗ wrong", "red")
    line.append(f" · it is {plain(question.answer)}", "bold")
    if check.feedback:
        line.append(f" · {plain(check.feedback)}")
    return line


class ScriptedRapidFrontend(ScriptedClockedFrontend):
    """One line per question from standard input; no colours, no pauses."""

    def begin(self, drill: RapidDrill, count: int) -> None:
        what = f"{count} questions in {clock_text(drill.section.limit_seconds)}"
        self._begin(drill.title, drill.set_name, what)

    def ask(self, prompt: RapidPrompt) -> Reply:
        self._show(_heading(prompt), prompt.question.prompt)
        return self._reply()

    def show_check(self, prompt: RapidPrompt, check: QuestionCheck) -> None:
        self.console.print(_check_line(prompt.question, check).plain, markup=False)


class InteractiveRapidFrontend(InteractiveClockedFrontend):
    """Rich output, with the time left live on the bottom line while the learner types."""

    def begin(self, drill: RapidDrill, count: int) -> None:
        self.console.print(title_line(drill.title, drill.set_name))
        self.console.print(
            f"{count} shapes in {clock_text(drill.section.limit_seconds)}: type (a, b), \\[a, b] "
            "or a x b. :skip moves on, :quit ends the round."
        )

    def ask(self, prompt: RapidPrompt) -> Reply:
        self._show(_heading(prompt), prompt.question.prompt)
        words = f"question {prompt.number}/{prompt.total} · {prompt.right_so_far} right"
        with self.countdown.waiting(prompt.remaining_seconds, words) as read:
            return self._reply(read)

    def show_check(self, prompt: RapidPrompt, check: QuestionCheck) -> None:
        self.console.print(_check_line(prompt.question, check))
        if check.valid and not check.correct and prompt.question.explanation:
            self.console.print(literal(prompt.question.explanation, "dim"))


def make_frontend(*, interactive: bool) -> ScriptedRapidFrontend | InteractiveRapidFrontend:
    if not interactive:
        return ScriptedRapidFrontend()
    from engine.ui.console import make_console

    return InteractiveRapidFrontend(make_console())


# -- the results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RapidBests:
    """The learner's bests before this round: most right, and fastest round with all right."""

    score: int | None
    time: float | None


def show_results(
    console: Console, run: DrillRun, questions: list[RapidQuestion], earlier: RapidBests
) -> None:
    console.print()
    console.print(results_table(run, questions))
    for line in summary(run, earlier):
        console.print(line)


def results_table(run: DrillRun, questions: list[RapidQuestion]) -> Table:
    table = Table(title="this round", title_justify="left", header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("shape of")
    table.add_column("answer")
    table.add_column("time", justify="right")
    table.add_column("", justify="left")
    for number, (part, question) in enumerate(zip(run.parts, questions, strict=True), 1):
        if part.status is PartStatus.NOT_REACHED:
            continue
        word, style = RESULT_WORDS.get(part.status, (str(part.status), ""))
        seconds = "—" if part.seconds is None else f"{part.seconds:.1f} s"
        table.add_row(
            str(number), literal(part.title), literal(question.answer), seconds, Text(word, style)
        )
    return table


def summary(run: DrillRun, earlier: RapidBests) -> list[Text]:
    right = sum(part.right for part in run.parts)
    answered = [p for p in run.parts if p.status in {PartStatus.RIGHT, PartStatus.WRONG}]
    total = len(run.parts)
    line = Text(f"{right}/{total} right in {clock_text(run.total_seconds)}", "bold")
    if answered:
        average = sum(p.seconds or 0.0 for p in answered) / len(answered)
        line.append(f" · {average:.1f} s a question")
    if run.within_limit:
        line.append(" · all right within the limit", "green")
    lines = [line]
    if earlier.score is None:
        lines.append(Text("your first round: this is the score to beat"))
        return lines
    best = Text(f"best before: {earlier.score} right")
    if earlier.time is not None:
        best.append(f", all right fastest in {clock_text(earlier.time)}")
    if right > earlier.score:
        best.append(" · new best score", "bold cyan")
    elif run.within_limit and (earlier.time is None or run.total_seconds < earlier.time):
        best.append(" · new best time", "bold cyan")
    lines.append(best)
    return lines
