"""The readable verdict on a coding exercise: cases, the mistake in the exercise's own words,
and after a pass the reference solution to compare with (as rustlings shows it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from engine.cards.exercise import ExerciseItem
from engine.ui.literal import literal
from engine.ui.submit_report import VERDICT_WORDS

if TYPE_CHECKING:
    from attention_ref.grading import CaseReport, Grade


def case_table(cases: list[CaseReport]) -> Table:
    table = Table(box=None, show_header=False)
    table.add_column("")
    table.add_column("case", no_wrap=True)
    table.add_column("result")
    for case in cases:
        mark = Text("✓", "green") if case.passed else Text("✗", "red")
        table.add_row(mark, literal(case.name), literal(case.message))
    return table


def mistake_lines(grade: Grade, item: ExerciseItem) -> list[Text]:
    lines = []
    for name in grade.diagnosis:
        lines.append(Text.assemble(("mistake: ", "bold yellow"), item.mistake_words(name)))
    return lines


def headline(grade: Grade) -> str:
    """What happened, in words: when every failed case returned the right values and only went
    over its memory bound, that is what the headline says, with the figures, not "wrong values"
    (the JSON verdict stays `wrong`: the exercise is not passed)."""
    failed = [case for case in grade.cases if not case.passed]
    if grade.verdict != "wrong" or not failed or not all(c.over_memory_only() for c in failed):
        return VERDICT_WORDS[grade.verdict]
    worst = max(failed, key=lambda case: case.peak_bytes or 0)
    held, bound = worst.peak_bytes or 0, worst.peak_bound_bytes or 0
    return (
        f"returns the right values, but uses too much memory: it held {held / 2**20:.1f} MiB "
        f"at once, over the {bound / 2**20:.1f} MiB bound"
    )


def show_exercise_grade(
    grade: Grade, item: ExerciseItem, set_name: str, console: Console | None = None
) -> None:
    console = console or Console()
    style = "green" if grade.passed else "red"
    console.print(
        Text.assemble((f"{item.title} ({item.signature}): ", "bold"), (headline(grade), style))
    )
    if grade.message:
        console.print(literal(grade.message))
    if grade.cases:
        console.print(case_table(grade.cases))
    for line in mistake_lines(grade, item):
        console.print(line)
    if grade.output.strip() and not grade.passed:
        console.print(Text("its output (last lines):", style="dim"))
        console.print(literal(grade.output.strip()[-600:], style="dim"))
    if grade.passed:
        console.print(Text("One way to write it, to compare with yours:", style="bold"))
        console.print(Syntax(item.solution.rstrip(), "python", theme="ansi_dark", word_wrap=True))
    elif item.hint_steps():
        console.print(Text(f"Stuck? attnquiz exercises {set_name} {item.id} --hints", style="dim"))
    if grade.timing and grade.timing.get("sizes"):
        console.print(timing_table(grade.timing))
        console.print(Text(f"({grade.timing['stopped']})", style="dim"))
    if grade.seed is not None:
        console.print(Text(f"cases drawn with seed {grade.seed}", style="dim"))


def timing_table(timing: dict[str, Any]) -> Table:
    table = Table(title="timing on this CPU", title_justify="left", box=None, header_style="bold")
    for column in ("T", "yours", "vs the reference solution", "vs the Numba kernel"):
        table.add_column(column, justify="right")
    for row in timing["sizes"]:
        table.add_row(
            str(row["T"]),
            f"{row['median_s'] * 1e3:.2f} ms",
            _times(row.get("vs_reference")),
            _times(row.get("vs_kernel")),
        )
    return table


def _times(ratio: float | None) -> str:
    """`ratio` is your time divided by theirs."""
    if ratio is None:
        return "-"
    return f"{ratio:.1f}× slower" if ratio >= 1 else f"{1 / ratio:.1f}× faster"
