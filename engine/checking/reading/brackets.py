"""Brackets in a line as learners type it: what stands outside them, and where a group ends.

Every reader of a line splits it at the top level (a chain at `=`, a statement at `⇒`, a call's
arguments at `,`) or looks for the end of a group (a sum's body, a function's argument). They
all count depth the same way, here once:

- an opening bracket of the kinds chosen (`Brackets`) adds one, a closing one takes one away,
  whatever its kind, so `(a]` is a closed group, as the readers have always taken it;
- "at the top level" means at depth 0 counted from where the scan starts: after a stray closing
  bracket the depth is -1, so nothing after it is at the top level (`a) = b` is not split);
- a scan for the end of a group stops at a closing bracket that closes nothing opened since
  the scan started, and a scan from the end stops at an opening bracket in the same way.

The scans jump from bracket to bracket with compiled patterns, so a line costs a few C-level
passes instead of one Python step per character.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple


class Brackets(NamedTuple):
    """The opening and the closing brackets a scan counts."""

    opening: str
    closing: str


ALL = Brackets("([{", ")]}")
ROUND_AND_SQUARE = Brackets("([", ")]")
ROUND = Brackets("(", ")")
BRACES = Brackets("{", "}")
# `{` and `(` (LaTeX's groups and the plain ones), not `[`: a subscript or a power's group.
BRACES_AND_ROUND = Brackets("{(", "})")


@functools.cache
def _any_of(characters: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(characters) + "]")


def _pattern(separators: str | re.Pattern[str]) -> re.Pattern[str]:
    return _any_of(separators) if isinstance(separators, str) else separators


def net_depth(text: str, start: int = 0, end: int | None = None, brackets: Brackets = ALL) -> int:
    """Opening minus closing brackets in `text[start:end]`."""
    end = len(text) if end is None else end
    opened = sum(text.count(bracket, start, end) for bracket in brackets.opening)
    return opened - sum(text.count(bracket, start, end) for bracket in brackets.closing)


def deepest(text: str, brackets: Brackets = ALL) -> int:
    """The greatest depth any point of `text` reaches (0 for text with no bracket)."""
    depth = greatest = 0
    for found in _any_of(brackets.opening + brackets.closing).finditer(text):
        if found.group() in brackets.opening:
            depth += 1
            greatest = max(greatest, depth)
        else:
            depth -= 1
    return greatest


def top_level(
    separators: str | re.Pattern[str],
    text: str,
    start: int = 0,
    end: int | None = None,
    brackets: Brackets = ALL,
    *,
    from_end: bool = False,
) -> Iterator[re.Match[str]]:
    """The matches of `separators` (a pattern, or a string of characters any of which is one)
    in `text[start:end]` that stand outside brackets, left to right; with `from_end`, right to
    left, the depth counted from `end` backwards (a stray opening bracket then hides what is
    before it). A separator must not match a bracket."""
    end = len(text) if end is None else end
    matches = _pattern(separators).finditer(text, start, end)
    depth = 0
    if not from_end:
        counted = start
        for match in matches:
            depth += net_depth(text, counted, match.start(), brackets)
            counted = match.start()
            if depth == 0:
                yield match
        return
    counted = end
    for match in reversed(list(matches)):
        depth -= net_depth(text, match.end(), counted, brackets)
        counted = match.end()
        if depth == 0:
            yield match


def split_top_level(
    text: str, separators: str | re.Pattern[str], brackets: Brackets = ALL
) -> list[str]:
    """`text` cut at every separator outside brackets (the separators dropped)."""
    pieces, start = [], 0
    for match in top_level(separators, text, brackets=brackets):
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


def group_end(text: str, start: int, brackets: Brackets = ALL, stops: str = "") -> int:
    """Going right from `start`: where the first closing bracket that closes nothing opened
    since `start` stands, or the first of the `stops` characters outside brackets;
    `len(text)` when there is neither."""
    found = _any_of(brackets.opening + brackets.closing + stops).finditer(text, start)
    at = _first_outside(found, brackets.opening, brackets.closing)
    return len(text) if at < 0 else at


def group_start(text: str, end: int, brackets: Brackets = ALL, stops: str = "") -> int:
    """Going left from just before `end`: where the first opening bracket that is closed
    nowhere before `end` stands, or the first of the `stops` characters outside brackets; -1
    when there is neither."""
    found = list(_any_of(brackets.opening + brackets.closing + stops).finditer(text, 0, end))
    return _first_outside(reversed(found), brackets.closing, brackets.opening)


def _first_outside(found: Iterable[re.Match[str]], inward: str, outward: str) -> int:
    """Where the first of `found` (brackets and stops, in the order of the scan) that stands
    outside every group the scan went into is: a bracket leading out of it, or a stop; -1 if
    there is none."""
    depth = 0
    for match in found:
        char = match.group()
        if char in inward:
            depth += 1
        elif char in outward and depth:
            depth -= 1
        elif not depth:
            return match.start()
    return -1


def matching_close(text: str, open_at: int, brackets: Brackets = ALL) -> int | None:
    """Where the group opened by the bracket at `open_at` closes; None if it never does."""
    end = group_end(text, open_at + 1, brackets)
    return end if end < len(text) else None


def matching_open(text: str, close_at: int, brackets: Brackets = ALL) -> int | None:
    """Where the group closed by the bracket at `close_at` opens; None if nothing opens it."""
    start = group_start(text, close_at, brackets)
    return start if start >= 0 else None


def unclosed(text: str, brackets: Brackets = ALL) -> list[int]:
    """Where the opening brackets that `text` leaves open stand, outermost first; a closing
    bracket with nothing open before it is passed over."""
    open_at: list[int] = []
    for found in _any_of(brackets.opening + brackets.closing).finditer(text):
        if found.group() in brackets.opening:
            open_at.append(found.start())
        elif open_at:
            open_at.pop()
    return open_at
