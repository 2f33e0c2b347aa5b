"""The readable `submit` report: the cases with ✓/✗, the diagnosis in words, the timing."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from attention_ref.diagnosis import EXPLANATIONS
from attention_ref.grading import Grade
from engine.ui.console import make_console
from engine.ui.literal import literal

VERDICT_WORDS = {
    "pass": "passed every case",
    "wrong": "runs, but returns wrong values",
    "error": "raised an error",
    "crash": "crashed",
    "timeout": "ran out of time",
    "memory": "ran out of memory",
    "not_found": "no function to check",
}


def show_grade(grade: Grade) -> None:
    """Everything the file or its output controls is printed as plain text, never as markup."""
    console = make_console()
    style = "green" if grade.passed else "red"
    title = f"{grade.function or '?'} ({grade.target})" if grade.function else grade.target
    console.print(Text.assemble((f"{title}: ", "bold"), (VERDICT_WORDS[grade.verdict], style)))
    if grade.function and grade.why:
        console.print(literal(f"checked {grade.function}: {grade.why}", style="dim"))
    if grade.called_as:
        console.print(Text(f"called with {grade.called_as}", style="dim"))
    if grade.message:
        console.print(literal(grade.message))
    if grade.cases:
        table = Table(box=None, show_header=True, header_style="bold")
        table.add_column("")
        table.add_column("case", no_wrap=True)
        table.add_column("result")
        for case in grade.cases:
            mark = Text("✓", "green") if case.passed else Text("✗", "red")
            table.add_row(mark, literal(case.name), literal(case.message))
        console.print(table)
        failing = next((case for case in grade.cases if not case.passed), None)
        if failing is not None:
            # In full, wrapped to the terminal: the table's column cuts long messages short.
            console.print(literal(f"first failure, {failing.name}: {failing.message}"))
    for name in grade.diagnosis:
        # The learner reads the explanation; the mistake's id is for --json and scripts.
        console.print(Text.assemble(("mistake: ", "bold yellow"), EXPLANATIONS.get(name, name)))
    for note in grade.notes:
        console.print(Text.assemble(("note: ", "bold"), literal(note)))
    if grade.output.strip():
        console.print(Text("its output (last lines):", style="dim"))
        console.print(literal(grade.output.strip()[-600:], style="dim"))
    if grade.seed and grade.cases:
        console.print(Text(f"inputs drawn with seed {grade.seed}", style="dim"))
    if grade.timing:
        show_timing(console, grade.timing)


def show_timing(console: Any, timing: dict[str, Any]) -> None:
    table = Table(title="timing on this CPU", title_justify="left", box=None, header_style="bold")
    columns = ("T", "yours", "spread", "samples", "GFLOP/s", "vs NumPy ref", "vs Numba kernel")
    for column in (*columns, "of peak"):
        table.add_column(column, justify="right")
    for row in timing.get("sizes", []):
        table.add_row(
            str(row["T"]),
            f"{row['median_s'] * 1e3:.2f} ms",
            f"±{row.get('iqr_s', row['spread_s']) * 1e3 / 2:.2f} ms",
            str(row["samples"]),
            f"{row['gflops']:.1f}",
            _ratio(row.get("vs_numpy")),
            _ratio(row.get("vs_kernel")),
            f"{100 * row['share_of_peak']:.1f}%" if row.get("share_of_peak") is not None else "-",
        )
    console.print(table)
    if timing.get("stopped"):
        console.print(literal(f"the ladder stopped: {timing['stopped']}"))
    for note in timing.get("notes", []):
        console.print(literal(f"note: {note}"))
    for key in ("measured", "roofline", "machine"):
        if timing.get(key):
            console.print(Text(str(timing[key]), style="dim" if key != "roofline" else ""))


def _ratio(value: float | None) -> str:
    """`value` is your time divided by theirs."""
    if value is None:
        return "-"
    return f"{value:.2f}× slower" if value >= 1 else f"{1 / value:.2f}× faster"
