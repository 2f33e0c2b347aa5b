"""The exercise verdict prints what the learner's code said exactly, never as markup or control."""

from __future__ import annotations

import io

from rich.console import Console

from attention_ref.grading import CaseReport
from engine.ui.exercise_report import case_table


def test_a_case_message_from_the_code_is_printed_literally() -> None:
    message = "raised ValueError: [bold red]oops[/] \x1b[2J"
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    console.print(case_table([CaseReport("[link=x]rows[/link]", False, message)]))
    text = out.getvalue()
    assert "[bold red]oops[/]" in text
    assert "[link=x]rows[/link]" in text
    assert "\x1b" not in text and "\\x1b[2J" in text
