"""`attnquiz stats SET [--json]`: counts, then pictures: the due forecast, retention over
time, strength per tag."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.clock import make_clock
from engine.commands.context import load_with_store
from engine.exit_codes import EXIT_OK
from engine.schedule import Scheduling
from engine.stats import SetStats, set_stats
from engine.store.parameters import ParametersInUse, parameters_in_use
from engine.store.settings import load_settings
from engine.ui.json_output import print_json

if TYPE_CHECKING:
    from rich.console import Console

# The most-missed leeches shown by name; `list` and --json have them all.
SHOWN_LEECHES = 8


def run_stats(set_name: str, as_json: bool, retention: float | None, data_dir: Path | None) -> int:
    now = make_clock()()
    qset, store = load_with_store(set_name, data_dir)
    try:
        # Recall is predicted with the parameters and the retention the learner's sessions use.
        in_use = parameters_in_use(store)
        settings = load_settings(store)
        if retention is None:
            retention = settings.retention
        scheduling = Scheduling(retention, parameters=in_use.parameters)
        drills = set_drills(qset.name, store.path.parent)
        stats = set_stats(store, qset, now, retention, scheduling, drills)
    finally:
        store.close()
    if as_json:
        print_json(
            {
                **stats.to_json(),
                "fsrs_parameters": in_use.to_json(),
                "settings": settings.to_json(),
            }
        )
    else:
        show(stats, now, in_use)
    return EXIT_OK


def set_drills(set_name: str, folder: Path) -> list[tuple[str, str]]:
    """The set's derivation drills as (id, title); none when the set has no drill file."""
    from engine.drills.loader import open_drill_set
    from engine.errors import UsageError

    try:
        drills = open_drill_set(set_name, folder)
    except UsageError:
        return []
    return [(d.id, d.title) for d in drills.drills]


def print_chart(console: Console, chart: str, colour: bool) -> None:
    """A chart string as drawn: its colour codes turned into rich styles, never read as markup."""
    from rich.text import Text

    console.print(Text.from_ansi(chart) if colour else Text(chart), no_wrap=True, crop=True)


def show(s: SetStats, now: datetime, in_use: ParametersInUse) -> None:
    from rich.table import Table
    from rich.text import Text

    from engine.ui.charts import chart_width, forecast_chart, retention_chart
    from engine.ui.console import make_console
    from engine.ui.strength import strength_table

    console = make_console()

    from engine.ui.literal import literal

    console.print(Text.assemble(literal(s.title, "bold"), f" (set {s.set})"))
    counts = Table.grid(padding=(0, 2))
    counts.add_row("cards", str(s.cards), "new", str(s.new))
    counts.add_row("learning", str(s.learning), "review", str(s.review))
    counts.add_row(
        "due now", f"[bold]{s.due_now}[/]", "reviews", f"{s.reviews} ({s.reviews_today} today)"
    )
    kinds = s.reviews_by_kind
    counts.add_row(
        "suspended",
        str(len(s.suspended)),
        "of which",
        f"{kinds.scheduled} scheduled · {kinds.cram} cram · {kinds.drill} drill",
    )
    if s.retention is None:
        measured = "no graduated reviews yet"
    else:
        desired = f"desired {100 * s.desired_retention:.0f}%"
        measured = f"{100 * s.retention:.1f}% of {s.retention_reviews} ({desired})"
    counts.add_row("retention", measured, "", "")
    console.print(counts)
    console.print(f"FSRS parameters: {in_use.describe()}")
    if s.retired:
        console.print(f"retired: {s.retired} cards no longer in the bank (history kept)")
    width = chart_width(console.width)
    colour = console.is_terminal and not console.no_color
    console.print()
    if any(d.due for d in s.forecast):
        print_chart(console, forecast_chart(s.forecast, width=width, colour=colour), colour)
    else:
        waiting = f"; {s.new} new cards wait for `attnquiz quiz {s.set}`" if s.new else ""
        console.print(f"no card is due in the next {len(s.forecast) - 1} days{waiting}")
    console.print()
    retention = retention_chart(
        s.retention_history, s.desired_retention, s.retention_period, width=width, colour=colour
    )
    print_chart(console, retention, colour)
    console.print()
    if any(t.introduced for t in s.tags):
        console.print(strength_table(s.tags, s.desired_retention))
    elif s.tags:
        console.print(f"strength per tag: no card of its {len(s.tags)} tags reviewed yet")
    if s.drills:
        console.print(drill_table(s, now))
    if s.leeches:
        shown = ", ".join(
            f"{leech['id']} ({leech['fails']}×{', suspended' if leech['suspended'] else ''})"
            for leech in s.leeches[:SHOWN_LEECHES]
        )
        more = len(s.leeches) - SHOWN_LEECHES
        console.print(
            Text.assemble(
                ("leeches", "yellow"),
                " (missed often; reread or rewrite): ",
                shown + (f" and {more} more" if more > 0 else ""),
            )
        )
    if s.suspended:
        console.print(
            f"suspended cards are out of the reviews: `attnquiz unsuspend {s.set}` brings them back"
        )
    if s.next_due:
        from engine.ui.describe import when

        console.print(f"next due: {when(datetime.fromisoformat(s.next_due), now)}")


def drill_table(s: SetStats, now: datetime) -> object:
    """The set's derivation drills: state and when each is due."""
    from rich.table import Table

    from engine.ui.describe import when

    table = Table(title="derivation drills", title_justify="left", box=None, padding=(0, 1))
    table.add_column("drill", no_wrap=True)
    table.add_column("state")
    table.add_column("due", no_wrap=True)
    for d in s.drills:
        due = None if d.due is None else datetime.fromisoformat(d.due)
        table.add_row(d.id, d.phase, when(due, now) if due else "-")
    return table
