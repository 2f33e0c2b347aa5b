"""The bank's plain text as the HTML an Anki field holds.

Banks write prose hard-wrapped at about 90 columns, code as indented (or fenced) blocks, and lists
one item per line. Anki shows a field as HTML, so wrapped lines are joined into paragraphs (the
card wraps them to its own width), while list items and code keep their lines. Everything is
escaped, so a `<` in a formula never becomes a tag.
"""

from __future__ import annotations

import html
import re
import textwrap

_FENCE = re.compile(r"```\w*\n(.*?)```", re.S)
# A line that starts something of its own: a numbered or bulleted item, a parenthesis, or a
# "Label: ..." line such as "Query (a row of Q): what the position is looking for".
_OWN_LINE = re.compile(r"\s*(?:\d+[.)]\s|[-•*]\s|\(|[A-Z][^.:;]{0,40}:\s)")


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def code_block(code: str) -> str:
    return f"<pre><code>{escape(textwrap.dedent(code).strip(chr(10)))}</code></pre>"


def prose(text: str) -> str:
    """Paragraphs of HTML from a bank's text."""
    parts: list[str] = []
    pos = 0
    for match in _FENCE.finditer(text):
        parts += _paragraphs(text[pos : match.start()])
        parts.append(code_block(match.group(1)))
        pos = match.end()
    parts += _paragraphs(text[pos:])
    return "".join(parts)


def _paragraphs(text: str) -> list[str]:
    out = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.startswith("    ") for line in lines):
            out.append(code_block(block))
            continue
        joined = escape(lines[0].strip())
        for line in lines[1:]:
            glue = "<br>" if _OWN_LINE.match(line) else " "
            joined += glue + escape(line.strip())
        out.append(f"<p>{joined}</p>")
    return out


def options_list(options: list[str]) -> str:
    items = "".join(f"<li>{escape(option)}</li>" for option in options)
    return f'<ol type="A" class="options">{items}</ol>'
