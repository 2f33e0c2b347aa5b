"""The end-of-session summary."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from engine.session import Summary
from engine.ui.describe import when
from engine.ui.loop import AnswerMark

if TYPE_CHECKING:
    from rich.console import Console


def print_summary(
    console: Console | None,
    summary: Summary,
    now: datetime,
    answers: Sequence[AnswerMark] = (),
) -> None:
    """Plain lines for scripts (no console); on a terminal a styled block, with a small chart of
    the session when its `answers` are given."""
    if summary.reviewed == 0:
        line = "nothing reviewed"
    else:
        share = round(100 * summary.correct / summary.reviewed)
        line = (
            f"reviewed {summary.reviewed} · correct {summary.correct} ({share}%) · "
            f"new {summary.new} · again {summary.again}"
        )
    nxt = f"next due: {when(summary.next_due, now)}" if summary.next_due else "next due: -"
    if console is None:
        print(textwrap.fill(f"session: {line}; {nxt}", 80), flush=True)
        if summary.leeches:
            print(textwrap.fill(f"new leeches: {', '.join(summary.leeches)}", 80), flush=True)
        return
    console.print(f"\n[bold]Session done[/]: {line}\n{nxt}")
    if answers:
        from engine.ui.session_chart import session_chart

        console.print(session_chart(answers, console.width))
    if summary.leeches:
        console.print(f"[yellow]new leeches:[/] {', '.join(summary.leeches)}")
