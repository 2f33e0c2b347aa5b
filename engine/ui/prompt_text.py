"""Render a card's text: prose reflowed to the terminal, fenced code blocks highlighted.

Bank authors wrap their prose at the file's width; the terminal has its own. A single line break
inside a paragraph is therefore a space, except where the layout means something: before a blank
line, an indented line (code, a matrix laid out by rows) or a list item, and after an indented
line.
"""

from __future__ import annotations

import re
import textwrap

from rich.console import Group, RenderableType
from rich.text import Text

_FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
_LIST_ITEM = re.compile(r"(?:[-*•]|\d+[.)])\s")


def reflow(text: str) -> str:
    """Join the lines of each paragraph, keeping the line breaks that carry layout."""
    lines = text.strip("\n").split("\n")
    out: list[str] = []
    for line in lines:
        item = _LIST_ITEM.match(out[-1]) if out else None
        if item and line.strip() and len(line) - len(line.lstrip(" ")) == item.end():
            # The wrapped continuation of a list item, indented under its text.
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
            continue
        keep_break = (
            not out
            or not out[-1].strip()
            or not line.strip()
            or line[:1].isspace()
            or out[-1][:1].isspace()
            or _LIST_ITEM.match(line) is not None
        )
        if keep_break:
            out.append(line.rstrip())
        else:
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
    return "\n".join(out)


def render_prompt(prompt: str, style: str = "") -> RenderableType:
    parts: list[RenderableType] = []
    pos = 0
    for match in _FENCE.finditer(prompt):
        before = prompt[pos : match.start()].strip("\n")
        if before:
            parts.append(Text(reflow(before), style=style))
        from rich.syntax import Syntax  # pygments is slow to import: only when a prompt has code

        parts.append(Syntax(match.group(2).rstrip(), match.group(1) or "python", theme="ansi_dark"))
        pos = match.end()
    rest = prompt[pos:].strip("\n")
    if rest:
        parts.append(Text(reflow(rest), style=style))
    return Group(*parts)


def plain_text(text: str, width: int = 80) -> str:
    """Card text for plain output (scripted mode): reflowed and wrapped at `width`; code blocks,
    indented lines and the fences themselves exactly as written."""
    out: list[str] = []
    pos = 0
    for match in _FENCE.finditer(text):
        out.extend(_wrapped(text[pos : match.start()], width))
        out.extend(match.group(0).rstrip("\n").split("\n"))
        pos = match.end()
    out.extend(_wrapped(text[pos:], width))
    return "\n".join(out).strip("\n")


def _wrapped(prose: str, width: int) -> list[str]:
    lines: list[str] = []
    for line in reflow(prose).split("\n") if prose.strip("\n") else []:
        if not line.strip() or line[:1].isspace() or len(line) <= width:
            lines.append(line)
            continue
        marker = _LIST_ITEM.match(line)
        indent = " " * (marker.end() if marker else 0)
        lines.extend(textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False))
    return lines
