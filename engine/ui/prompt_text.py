"""Render a card's prompt: text as written, fenced code blocks highlighted."""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.text import Text

_FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def render_prompt(prompt: str) -> RenderableType:
    parts: list[RenderableType] = []
    pos = 0
    for match in _FENCE.finditer(prompt):
        before = prompt[pos : match.start()].strip("\n")
        if before:
            parts.append(Text(before))
        from rich.syntax import Syntax  # pygments is slow to import: only when a prompt has code

        parts.append(Syntax(match.group(2).rstrip(), match.group(1) or "python", theme="ansi_dark"))
        pos = match.end()
    rest = prompt[pos:].strip("\n")
    if rest:
        parts.append(Text(rest))
    return Group(*parts)
