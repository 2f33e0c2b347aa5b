"""Charts with axes for `attnquiz stats`: the due forecast and measured retention over time.

Drawn with plotext (imported only here, when a chart is drawn) into a string of at most
CHART_WIDTH columns; without colour the string is plain text, with no escape codes at all.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import date
from typing import Any

from engine.stats import DueDay, RetentionPeriod

CHART_WIDTH = 80
NARROWEST = 40
FORECAST_HEIGHT = 11
RETENTION_HEIGHT = 12
# Below these counts a retention figure is mostly noise: say so and show the counts instead.
MIN_PERIOD_REVIEWS = 5
MIN_CHART_REVIEWS = 20
MIN_CHART_POINTS = 2


def chart_width(console_width: int) -> int:
    """Charts take the console's width, up to CHART_WIDTH columns."""
    return max(NARROWEST, min(CHART_WIDTH, console_width))


def forecast_chart(days: Sequence[DueDay], *, width: int, colour: bool) -> str:
    """Bars of the cards due per day, the count above each bar and the day below it; the first
    bar (today) holds the overdue cards too."""
    fig = _figure(width, FORECAST_HEIGHT, colour)
    xs = list(range(len(days)))
    fig.draw(fig.bar(xs, [d.due for d in days], marker="full", width=0.7))
    fig.title(f"cards due per day: today (with the overdue) and the next {len(days) - 1} days")
    fig.ruler("x").lim(-0.5, len(days) - 0.5)
    # A day's label ("Tue 24") and a gap take 8 columns; the counts above the bars need fewer.
    every = max(1, -(-8 * len(days) // (width - 4)))
    fig.ruler("x", 0).ticks(xs[::every], [_day_label(days[k].date, k) for k in xs[::every]])
    fig.ruler("x", 1).ticks(xs, [str(d.due) for d in days])
    fig.ruler("y").ticks([])
    return _render(fig, colour)


def retention_chart(
    history: Sequence[RetentionPeriod], desired: float, period: str, *, width: int, colour: bool
) -> str:
    """Measured retention per period as a line against the desired retention, or, when there
    are too few reviews for a line to mean anything, one sentence with the counts."""
    if not history:
        return "retention over time: no reviews yet"
    reviews = sum(p.reviews for p in history)
    recalled = sum(p.correct for p in history)
    span = f"{len(history)} {period}s" if len(history) != 1 else f"1 {period}"
    counted = f"{reviews} graduated reviews in the last {span}"
    if reviews:
        counted += f", {recalled} recalled ({100 * recalled / reviews:.0f}%)"
    points = [(k, p) for k, p in enumerate(history) if p.reviews >= MIN_PERIOD_REVIEWS]
    if reviews < MIN_CHART_REVIEWS or len(points) < MIN_CHART_POINTS:
        return textwrap.fill(
            f"retention over time: {counted}; a chart needs {MIN_CHART_REVIEWS} in all, and "
            f"{MIN_PERIOD_REVIEWS} or more in each of at least {MIN_CHART_POINTS} {period}s.",
            width,
        )
    fig = _figure(width, RETENTION_HEIGHT, colour)
    xs = [k for k, _ in points]
    ys = [100 * (p.retention or 0.0) for _, p in points]
    line = fig.signal(xs, ys, marker="dot")
    line.lines()
    fig.draw(line)
    fig.line(100 * desired, style="dotted")
    fig.title(f"recalled per {period} (%) · dotted: the desired {100 * desired:.0f}%")
    low = min([*ys, 100 * desired])
    bottom = max(0, min(50, 10 * int((low - 5) // 10)))
    fig.ruler("y").lim(bottom, 100)
    fig.ruler("y").ticks(list(range(bottom, 101, 10 if 100 - bottom <= 50 else 20)))
    every = max(1, -(-len(history) * 8 // (width - 8)))
    positions = list(range(len(history) - 1, -1, -every))[::-1]
    fig.ruler("x").lim(-0.5, len(history) - 0.5)
    fig.ruler("x").ticks(positions, [_short_date(history[k].period_start) for k in positions])
    note = counted
    if len(points) < len(history):
        note += f"; {period}s with fewer than {MIN_PERIOD_REVIEWS} reviews are left out"
    return _render(fig, colour) + "\n" + textwrap.fill(note, width)


def _figure(width: int, height: int, colour: bool) -> Any:
    import plotext

    fig = plotext.figure
    fig.clear()  # plotext keeps one global figure: start each chart from nothing
    # The chart's size is ours: plotext would shrink it to the terminal's, and a short one
    # (a few lines) makes it abort the process.
    fig.parent().limit(False, False)
    fig.plot_size(width, height)
    fig.theme("simple" if colour else "colorless")
    return fig


def _render(fig: Any, colour: bool) -> str:
    text = str(fig.build().string(colorless=not colour))
    if colour:
        return text
    return "\n".join(line.rstrip() for line in text.splitlines())


def _day_label(iso: str, offset: int) -> str:
    return "today" if offset == 0 else date.fromisoformat(iso).strftime("%a %d")


def _short_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%d %b")
