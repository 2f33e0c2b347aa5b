"""`attnquiz stats SET [--json]`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from engine.clock import make_clock
from engine.commands.context import load_with_store
from engine.stats import SetStats, set_stats


def run_stats(set_name: str, as_json: bool, retention: float, data_dir: Path | None) -> int:
    now = make_clock()()
    qset, store = load_with_store(set_name, data_dir)
    try:
        stats = set_stats(store, qset, now, retention)
    finally:
        store.close()
    if as_json:
        print(json.dumps(stats.to_json(), ensure_ascii=False))
    else:
        show(stats, now)
    return 0


def show(s: SetStats, now: datetime) -> None:
    from rich.table import Table

    from engine.ui.console import make_console

    console = make_console()
    console.print(f"[bold]{s.title}[/] (set {s.set})")
    counts = Table.grid(padding=(0, 2))
    counts.add_row("cards", str(s.cards), "new", str(s.new))
    counts.add_row("learning", str(s.learning), "review", str(s.review))
    counts.add_row(
        "due now", f"[bold]{s.due_now}[/]", "reviews", f"{s.reviews} ({s.reviews_today} today)"
    )
    if s.retention is None:
        measured = "no graduated reviews yet"
    else:
        desired = f"desired {100 * s.desired_retention:.0f}%"
        measured = f"{100 * s.retention:.1f}% of {s.retention_reviews} ({desired})"
    counts.add_row("retention", measured, "", "")
    if s.retired:
        counts.add_row("retired", f"{s.retired} cards no longer in the bank (history kept)", "", "")
    console.print(counts)
    peak = max([int(str(d["due"])) for d in s.due_per_day] + [1])
    forecast = Table(title="due in the next week", title_justify="left", box=None)
    forecast.add_column("day")
    forecast.add_column("cards", justify="right")
    forecast.add_column("")
    for d in s.due_per_day:
        n = int(str(d["due"]))
        day = datetime.fromisoformat(str(d["date"])).strftime("%a %d %b")
        forecast.add_row(day, str(n), "█" * round(30 * n / peak))
    console.print(forecast)
    if s.leeches:
        console.print(
            "[yellow]leeches[/] (missed often; reread or rewrite): "
            + ", ".join(f"{leech['id']} ({leech['fails']}×)" for leech in s.leeches)
        )
    if s.next_due:
        from engine.ui.describe import when

        console.print(f"next due: {when(datetime.fromisoformat(s.next_due), now)}")
