"""What the learning commands run in: `quiz`, `drill`, `drill --timed` and `drill --rapid`.

One frame gives each of them the checker (a `BoundedChecker` and its worker process, started
first, so that SymPy loads while the bank, the store and the first question do), the clock, the
store folder and, once asked for, the store; whether the learner is at a terminal; and at the
end, also after Ctrl-C, closes the store and stops the worker. A command that was interrupted
says what was kept and exits 130 (`interrupted`).

The checker is the command line's (`engine.cli.main` starts it before Typer even parses the
arguments, and stops it at the end); a command run without one gets its own (`checker_for`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.clock import Clock, make_clock
from engine.exit_codes import EXIT_INTERRUPTED
from engine.paths import store_dir
from engine.store import Store, open_store

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker


@dataclass
class Frame:
    checker: Checker
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


def new_checker() -> Checker:
    """A checker of its own for one command run: a bounded checker and its worker process."""
    from engine.checking.worker.bounded import BoundedChecker

    return BoundedChecker()


@contextmanager
def checker_for(given: Checker | None) -> Iterator[Checker]:
    """`given` (started; its owner stops it), or a new checker, started now and stopped at the
    end, also after Ctrl-C."""
    if given is not None:
        given.start()  # a no-op when it runs already
        yield given
        return
    checker = new_checker()
    checker.start()
    try:
        yield checker
    finally:
        checker.close()


@contextmanager
def learning(data_dir: Path | None, checker: Checker | None = None) -> Iterator[Frame]:
    """The frame of one learning command; everything it opened is closed at the end."""
    with checker_for(checker) as running:
        frame = Frame(running, make_clock(), store_dir(data_dir), sys.stdin.isatty())
        try:
            yield frame
        finally:
            frame.close()


def interrupted(kept: str) -> int:
    """Ctrl-C: say what was kept, and exit 130."""
    print(f"interrupted: {kept}", file=sys.stderr)
    return EXIT_INTERRUPTED
