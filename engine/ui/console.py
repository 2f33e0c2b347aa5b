"""One rich console for the program: 80 columns at most, NO_COLOR respected (rich does it)."""

from __future__ import annotations

from rich.console import Console


def make_console(stderr: bool = False) -> Console:
    console = Console(stderr=stderr, highlight=False)
    if console.width > 100:
        console.width = 100
    return console
