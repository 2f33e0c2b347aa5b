"""Shared fixtures for the checking tests.

`nothing_runs` traps every way typed text could be run: SymPy's string parser, eval/exec/compile
of source text, breakpoint/input, a shell or a new process. A module that uses it defines its own
`warmed_up` fixture, which imports everything its checks need first: importing a module executes
a code object, and that must happen before the traps are set, not be mistaken for evaluation.
"""

from __future__ import annotations

import ast
import builtins
import os
import subprocess

import pytest


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
        # `ast.parse` compiles with PyCF_ONLY_AST, which makes a tree and never code.
        flags = kwargs.get("flags", args[2] if len(args) > 2 else 0)
        if not int(flags) & ast.PyCF_ONLY_AST:  # type: ignore[call-overload]
            trap("compile")()
        return real_compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "compile", compile_to_syntax_tree_only)
    for name in ("system", "popen", "execv", "execve", "fork", "spawnv"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, trap(f"os.{name}"))
    monkeypatch.setattr(subprocess.Popen, "__init__", trap("subprocess.Popen"))
    return reached
