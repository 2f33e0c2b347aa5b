"""The end-of-session summary."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text

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
    *,
    set_name: str = "",
) -> None:
    """Plain lines for scripts (no console); on a terminal a styled block, with a small chart of
    the session when its `answers` are given."""
    notes = []
    if summary.new_waiting:
        cards = "card waits" if summary.new_waiting == 1 else "cards wait"
        notes.append(
            f"{summary.new_waiting} new {cards} beyond today's limit "
            f"(raise it with `attnquiz quiz {set_name} --new N`)"
        )
    if summary.suspended:
        notes.append(
            f"suspended as leeches: {', '.join(summary.suspended)} "
            f"(bring back with `attnquiz unsuspend {set_name}`)"
        )
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
        from engine.ui.scripted import text_width

        width = text_width()
        print(textwrap.fill(f"session: {line}; {nxt}", width), flush=True)
        if summary.leeches:
            print(textwrap.fill(f"new leeches: {', '.join(summary.leeches)}", width), flush=True)
        for note in notes:
            print(textwrap.fill(note, width), flush=True)
        return
    console.print(f"\n[bold]Session done[/]: {line}\n{nxt}")
    for note in notes:
        console.print(Text(note, style="yellow"))
    if answers:
        from engine.ui.session_chart import session_chart

        console.print(session_chart(answers, console.width))
    if summary.leeches:
        console.print(Text.assemble(("new leeches: ", "yellow"), ", ".join(summary.leeches)))
