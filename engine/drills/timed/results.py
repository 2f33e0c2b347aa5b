"""The end of a timed drill: this run against the learner's bests, the trend, the model answers."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from engine.bank.model import QuestionSet
from engine.drills.clocked.countdown import clock_text
from engine.drills.clocked.records import Comparison
from engine.drills.clocked.run import DrillRun, PartStatus
from engine.drills.timed.file import TimedDrill
from engine.drills.timed.grading import model_answer
from engine.ui.literal import literal

SPARKS = "▁▂▃▄▅▆▇█"
STATUS_WORDS = {
    PartStatus.SKIPPED: "skipped",
    PartStatus.TIMED_OUT: "time up",
    PartStatus.STOPPED: "stopped",
    PartStatus.NOT_REACHED: "not reached",
    PartStatus.WRONG: "wrong",
}


def sparkline(values: list[float]) -> str:
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return "".join(SPARKS[round((v - low) / span * (len(SPARKS) - 1))] for v in values)


def show_results(
    console: Console,
    drill: TimedDrill,
    qset: QuestionSet,
    run: DrillRun,
    earlier: Comparison,
) -> None:
    console.print()
    console.print(results_table(run, earlier))
    console.print(_verdict(run))
    trend = trend_line(earlier)
    if trend is not None:
        console.print(trend)
    for part, result in zip(drill.parts, run.parts, strict=True):
        if result.right:
            continue
        console.print(literal(f"{part.title}:", "bold"))
        for question in part.questions:
            console.print(literal(_indent(model_answer(qset, question))))


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
            literal(result.title),
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
