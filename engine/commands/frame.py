"""The one skeleton of every command that grades: `quiz`, `drill` (also `--timed` and
`--rapid`), `check` (also `--step`) and `lint`.

`run_in_frame` gives the command's body a `Frame`: the checker (a `BoundedChecker` and its
worker process, started first, so that SymPy loads while the bank, the store and the first
question do), the clock, the store folder and, once asked for, the store; whether the learner is
at a terminal. At the end, also after Ctrl-C, it closes the store and stops the worker. Ctrl-C,
wherever it comes (or a body that returns `EXIT_INTERRUPTED` after handling it itself, to show
what it must first), ends in one line saying what was kept, and exit 130. The body's other exit
codes pass through; domain errors go on to the edge, `engine.commands.errors.run_guarded`.

The checker is the command line's (`engine.cli.main` starts it before Typer even parses the
arguments, and stops it at the end); a command run without one gets its own (`checker_for`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
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
    # What is kept if Ctrl-C ends the command, said after "interrupted: "; the body may say more
    # once it knows (how many answers were saved).
    kept: str
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


def _at_terminal() -> bool:
    """Whether standard input is a terminal (it may also be closed: no terminal, no input)."""
    return sys.stdin is not None and sys.stdin.isatty()


def run_in_frame(
    body: Callable[[Frame], int],
    data_dir: Path | None,
    checker: Checker | None,
    *,
    kept: str,
) -> int:
    """Run one grading command's `body` in its frame; its exit code. `kept` is what Ctrl-C
    keeps, in the learner's words ("every finished drill is saved")."""
    frame: Frame | None = None
    try:
        with checker_for(checker) as running:
            frame = Frame(running, make_clock(), store_dir(data_dir), _at_terminal(), kept)
            try:
                code = body(frame)
            finally:
                frame.close()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED:
        print(f"interrupted: {kept if frame is None else frame.kept}", file=sys.stderr)
    return code
