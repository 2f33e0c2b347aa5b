"""What the learning commands run in: `quiz`, `drill`, `drill --timed` and `drill --rapid`.

One frame gives each of them the checking worker (started first, so that SymPy loads while the
bank, the store and the first question do), the clock, the store folder and, once asked for,
the store; whether the learner is at a terminal; and at the end, also after Ctrl-C, closes the
store and stops the worker. A command that was interrupted says what was kept and exits 130
(`interrupted`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from engine.clock import Clock, make_clock
from engine.exit_codes import EXIT_INTERRUPTED
from engine.paths import store_dir
from engine.store import Store, open_store


@dataclass
class Frame:
    clock: Clock
    folder: Path
    interactive: bool  # standard input is a terminal (else the scripted front ends)
    _store: Store | None = field(default=None, repr=False)

    def store(self) -> Store:
        """The store of `folder`, opened on first use (after the command's own files are read,
        so that a bad set name or drill file leaves no store behind)."""
        if self._store is None:
            self._store = open_store(self.folder)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


@contextmanager
def learning(data_dir: Path | None) -> Iterator[Frame]:
    """The frame of one learning command; everything in it is closed at the end."""
    from engine.checking.bounded import close_checker, start_checker

    start_checker()
    try:
        frame = Frame(make_clock(), store_dir(data_dir), sys.stdin.isatty())
        try:
            yield frame
        finally:
            frame.close()
    finally:
        close_checker()  # also after Ctrl-C; atexit would too, this is just sooner


def interrupted(kept: str) -> int:
    """Ctrl-C: say what was kept, and exit 130."""
    print(f"interrupted: {kept}", file=sys.stderr)
    return EXIT_INTERRUPTED
