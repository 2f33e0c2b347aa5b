"""Bounded capture of what the sandbox prints: keep the tail, count the rest, never grow."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL and C1 controls: they could move the cursor or
# recolour the grader's terminal; and the bidirectional embeddings, overrides and isolates
# (U+202A-U+202E, U+2066-U+2069): a terminal that lays out bidi text would show what follows
# them reversed or moved, so the screen would not say what was written. All shown as escapes.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class CappedTail:
    """The last `limit` bytes written to a stream, and how many bytes were written in all."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._data = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._data += chunk[-self._limit :]
        excess = len(self._data) - self._limit
        if excess > 0:
            del self._data[:excess]

    def text(self) -> str:
        return visible_controls(self._data.decode("utf-8", errors="replace"))


def visible_controls(text: str) -> str:
    """`text` with every terminal control character (but tab and newline) shown as `\\xNN`,
    and every bidirectional control as `\\uNNNN`."""
    return CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
