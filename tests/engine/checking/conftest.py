"""Shared fixtures for the checking tests.

`nothing_runs` traps every way typed text could be run: SymPy's string parser, eval/exec/compile
of source text, breakpoint/input, a shell or a new process. A module that uses it defines its own
`warmed_up` fixture, which imports everything its checks need first: importing a module executes
a code object, and that must happen before the traps are set, not be mistaken for evaluation.

`hostile_checker` is a bounded checker whose worker misbehaves on marked inputs
(`hostile_worker`), shared by the tests of time-outs, crashes and memory limits; `limits` sets
the check time limit of one test: generous, or short around a check that never ends.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from engine.checking.worker import bounded
from engine.checking.worker.bounded import BoundedChecker
from tests.engine.checking import hostile_worker

# Far more than any ordinary check needs, however loaded the machine.
GENEROUS_LIMIT_S = 60.0
# For a check that never ends by itself: any limit stops it, and a spinning one burns CPU until
# it does, so the shorter the better.
SHORT_LIMIT_S = 0.25


@pytest.fixture(scope="session")
def hostile_checker() -> Iterator[BoundedChecker]:
    """One checker whose worker is `hostile_worker`, shared by every test that stops a check:
    each stop replaces the worker, and the replacement serves the next test."""
    checker = BoundedChecker(worker_module=hostile_worker.MODULE)
    yield checker
    checker.close()


class Limits:
    """The check time limit ($ATTNQUIZ_CHECK_TIMEOUT) for one test: generous, except in `short`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        monkeypatch.setenv(bounded.TIMEOUT_ENV, f"{GENEROUS_LIMIT_S:g}")

    @contextlib.contextmanager
    def short(self) -> Iterator[float]:
        """A short limit inside the block (for a check that never ends by itself)."""
        self._monkeypatch.setenv(bounded.TIMEOUT_ENV, f"{SHORT_LIMIT_S:g}")
        try:
            yield SHORT_LIMIT_S
        finally:
            self._monkeypatch.setenv(bounded.TIMEOUT_ENV, f"{GENEROUS_LIMIT_S:g}")


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> Limits:
    return Limits(monkeypatch)


def _an_import_compiles() -> bool:
    """Whether `compile` was called by importlib loading a module's source file (frame 0 is
    this function, 1 the trap, 2 importlib's `_call_with_frames_removed`, 3 `source_to_code`)."""
    frame = sys._getframe(2)
    for _ in range(2):
        if frame is None:
            return False
        code = frame.f_code
        if code.co_name == "source_to_code" and code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch, warmed_up: None) -> list[str]:
    """Record any reach for an evaluator, a shell or a new process; the test asserts none."""
    import sympy.parsing.sympy_parser as sympy_parser

    reached: list[str] = []

    def trap(name: str):
        def forbidden(*args: object, **kwargs: object) -> None:
            reached.append(name)
            raise AssertionError(f"typed text reached {name}")

        return forbidden

    monkeypatch.setattr(sympy_parser, "parse_expr", trap("parse_expr"))
    for name in ("breakpoint", "input"):
        monkeypatch.setattr(builtins, name, trap(name))
    for name in ("eval", "exec"):
        # SymPy imports some of its modules lazily, and an import executes a code object; what
        # must never happen is text being evaluated.
        real = getattr(builtins, name)

        def text_never(source: object, *args: object, _real=real, _name=name) -> object:
            if isinstance(source, str | bytes):
                trap(_name)()
            return _real(source, *args)

        monkeypatch.setattr(builtins, name, text_never)
    real_compile = builtins.compile

    def compile_to_syntax_tree_only(source: object, *args: object, **kwargs: object) -> object:
        # `ast.parse` compiles with PyCF_ONLY_AST, which makes a tree and never code. An import
        # compiles a module's source file when its bytecode is not cached yet (a fresh clone:
        # SymPy imports sympy.sets.setexpr only when log(0) is evaluated): importlib's own
        # `source_to_code`, reading a file, is not typed text.
        flags = kwargs.get("flags", args[2] if len(args) > 2 else 0)
        if not int(flags) & ast.PyCF_ONLY_AST and not _an_import_compiles():  # type: ignore[call-overload]
            trap("compile")()
        return real_compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "compile", compile_to_syntax_tree_only)
    for name in ("system", "popen", "execv", "execve", "fork", "spawnv"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, trap(f"os.{name}"))
    monkeypatch.setattr(subprocess.Popen, "__init__", trap("subprocess.Popen"))
    return reached
