"""Text that the learner or a bank's author wrote, made safe to show exactly as written.

Two things could otherwise reach the terminal as commands instead of text: rich markup
(`[red]`, `[/]`, `[link=...]`), which rich parses in every plain string it prints, and control
characters (escape sequences that move the cursor, recolour, or open a terminal hyperlink).
`literal` gives a rich Text (never parsed as markup) with controls shown as `\\xNN`; `plain`
gives the same characters as a str for `print`.
"""

from __future__ import annotations

from rich.text import Text

from attention_ref.sandbox.output import visible_controls


def plain(text: object) -> str:
    return visible_controls(str(text))


def literal(text: object, style: str = "") -> Text:
    return Text(plain(text), style=style)
