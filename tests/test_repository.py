"""The repository keeps its promises about itself: CI runs the README's test command, and the
documents the code cites ship with it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _load_time_imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules a file imports as it loads: statements in its body (not inside a
    function, nor under `if TYPE_CHECKING:`), with `from a.b import c` naming a.b.c when c is a
    module itself."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If):
                guard = ast.unparse(node.test)
                if "TYPE_CHECKING" not in guard:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {module for module in found if module in modules and module != name}


def test_no_module_imports_itself_back_as_it_loads() -> None:
    """No import cycle among the modules of engine/ and attention_ref/ (Tarjan's strongly
    connected components over the load-time import graph: every component is one module)."""
    paths = [*ROOT.glob("engine/**/*.py"), *ROOT.glob("attention_ref/**/*.py")]
    graph = {_module_name(p): p for p in paths}
    edges = {name: _load_time_imports(path, set(graph)) for name, path in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    assert len(graph) > 100  # the walk found the project's modules
    assert not cycles, cycles
