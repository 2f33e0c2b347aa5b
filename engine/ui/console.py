"""One rich console for the program: 100 columns at most, NO_COLOR respected (rich does it).

At least MIN_WIDTH columns too: a width of 0 (`COLUMNS=0`) printed nothing at all, and a few
columns one character per line; a terminal that narrow wraps the lines itself.
"""

from __future__ import annotations

from rich.console import Console

MIN_WIDTH = 40


def make_console(stderr: bool = False) -> Console:
    console = Console(stderr=stderr, highlight=False)
    if console.width > 100:
        console.width = 100
    elif console.width < MIN_WIDTH:
        console.width = MIN_WIDTH
    return console
