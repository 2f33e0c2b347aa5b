"""The repository keeps its promises about itself: CI runs the README's test command, and the
documents the code cites ship with it."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_exactly_the_readmes_second_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == readme_commands()[1]
    # The linters run as their own steps, and the tests last, with pytest's own exit status.
    assert readme_commands()[1].endswith("&& .venv/bin/pytest")
    for step in ("ruff check", "ruff format --check", "mypy"):
        assert f".venv/bin/{step}" in ci[-1]


def test_every_document_the_code_cites_ships_in_the_repository() -> None:
    cited = set()
    for path in [*ROOT.glob("engine/**/*.py"), *ROOT.glob("attention_ref/**/*.py")]:
        cited |= set(re.findall(r"\b(docs/[\w./-]+\.md)\b", path.read_text(encoding="utf-8")))
        assert "SPEC.md" not in path.read_text(encoding="utf-8"), path
    assert "docs/spec.md" in cited
    assert all((ROOT / doc).is_file() for doc in cited), cited


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at load time or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


ABOVE_CHECKING = (
    "engine.cards",
    "engine.bank",
    "engine.exercise_attempts",
    "engine.session",
    "engine.store",
    "engine.drills",
    "engine.ui",
    "engine.commands",
    "engine.cli",
    "engine.export",
)


@pytest.mark.parametrize(
    ("package", "above"),
    [
        # The Anki export writes files; it shares words with the screen, never the screen itself.
        ("engine/export", ("engine.ui", "engine.commands", "engine.cli")),
        # Scheduling, banks, cards and the store are below every front end and command.
        ("engine/bank", ("engine.ui", "engine.commands", "engine.cli", "engine.session")),
        ("engine/cards", ("engine.ui", "engine.commands", "engine.cli", "engine.session")),
        ("engine/store", ("engine.ui", "engine.commands", "engine.cli", "engine.session")),
        # The front ends, the session and the drills are below the commands that assemble them.
        ("engine/ui", ("engine.commands", "engine.cli")),
        ("engine/drills", ("engine.commands", "engine.cli", "engine.session")),
        ("engine/session.py", ("engine.ui", "engine.commands", "engine.cli", "engine.drills")),
        # Reading and judging answers knows nothing of cards, banks, stores or screens (the
        # checking worker, a service that runs the cards' grading, sits above the cards).
        *(
            (f"engine/checking/{part}", ABOVE_CHECKING)
            for part in ("reading", "equivalence", "derivation")
        ),
        ("engine/checking/worker", tuple(m for m in ABOVE_CHECKING if m != "engine.cards")),
        # The reference and the sandbox stand alone: the engine calls them, never the reverse.
        ("attention_ref", ("engine",)),
    ],
)
def test_dependencies_point_down(package: str, above: tuple[str, ...]) -> None:
    top = ROOT / package
    for path in sorted(top.rglob("*.py")) if top.is_dir() else [top]:
        upward = {m for m in imported_modules(path) if m.startswith(above)}
        assert not upward, f"{path.relative_to(ROOT)} imports {sorted(upward)}"


def _cycle_report() -> Any:
    """.ci/import_cycles.py, the report CONTRIBUTING.md points to, loaded as a module."""
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / ".ci/import_cycles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("eager", [True, False], ids=["as modules load", "lazy imports too"])
def test_no_module_imports_itself_back(eager: bool) -> None:
    """No import cycle among the modules of engine/ and attention_ref/: every strongly connected
    component of the import graph is one module."""
    report = _cycle_report()
    edges = report.graph(eager=eager, typing=False)
    assert len(edges) > 100  # the walk found the project's modules
    assert not report.components(edges)
