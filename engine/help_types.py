"""Type names in `--help` as a person reads them (TEXT, INTEGER), not Python's (`<list[str]>`).

Typer labels each option with its Python annotation; a learner reading `attnquiz quiz --help`
should see `--new INTEGER [0<=x<=9999]`, and nothing at all after a flag such as `--cram`.
"""

from __future__ import annotations

import re
from typing import Any

WORDS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "path": "PATH", "datetime": "DATE"}


def plain_type(label: str | None) -> str | None:
    """`<list[str]>` → `TEXT`, `<int range>` → `INTEGER`, `<bool>` → None (a flag)."""
    if label is None:
        return None
    inner = label.strip("<>").removesuffix("...").strip("<>")
    inner = re.sub(r"^list\[(.*)\]$", r"\1", inner).removesuffix(" range")
    if inner == "bool":
        return None
    return WORDS.get(inner, inner.upper())


def install() -> None:
    """Make typer's rich help use `plain_type` for options and arguments."""
    from typer.core import TyperArgument, TyperOption

    for cls in (TyperArgument, TyperOption):
        original = cls.display_type_rich
        if getattr(original, "plain", False):
            continue

        def display(self: Any, ctx: Any, _original: Any = original) -> str | None:
            return plain_type(_original(self, ctx))

        display.plain = True  # type: ignore[attr-defined]
        cls.display_type_rich = display  # type: ignore[method-assign]
