"""The per-tag strength table of `attnquiz stats`: which topics are held least well now."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from engine.stats import TagStrength
from engine.ui.describe import days_text
from engine.ui.literal import literal

BAR_CELLS = 10


def strength_table(tags: Sequence[TagStrength], desired: float) -> Table | Text:
    """Weakest tag first; recall now as a bar and a percentage, green at or above the desired
    retention. Text when the bank has no tags."""
    if not tags:
        return Text("no item of this set has a tag, so there is no per-tag table")
    table = Table(
        title="strength per tag, weakest first (recall now: predicted by FSRS)",
        title_justify="left",
        box=None,
        padding=(0, 1),
        pad_edge=False,
    )
    table.add_column("tag", overflow="ellipsis", no_wrap=True, max_width=18)
    table.add_column("cards", justify="right")
    table.add_column("seen", justify="right")
    table.add_column("recall now", no_wrap=True)
    table.add_column("stability", justify="right", no_wrap=True)
    table.add_column("lapses", justify="right")
    table.add_column("leeches", justify="right")
    for t in tags:
        table.add_row(
            literal(t.tag),
            str(t.cards),
            str(t.introduced),
            recall_bar(t.retrievability, desired),
            "-" if t.stability_days is None else days_text(t.stability_days),
            str(t.lapses),
            Text(str(t.leeches), style="yellow" if t.leeches else ""),
        )
    return table


def recall_bar(recall: float | None, desired: float) -> Text:
    """`██████▌    87%`: the share of BAR_CELLS filled, in eighths of a cell."""
    if recall is None:
        return Text("not started".ljust(BAR_CELLS + 5), style="dim")
    eighths = round(recall * BAR_CELLS * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    style = "green" if recall >= desired else "yellow" if recall >= desired - 0.15 else "red"
    text = Text(bar.ljust(BAR_CELLS), style=style)
    text.append(f" {100 * recall:3.0f}%")
    return text
