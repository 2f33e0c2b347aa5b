"""Count import cycles between the modules of engine/ and attention_ref/ (a report, not a gate).

    python3 .ci/import_cycles.py            # every import, also lazy (in a function) ones
    python3 .ci/import_cycles.py --eager    # only imports that run when the module loads
    python3 .ci/import_cycles.py --typing   # also imports under `if TYPE_CHECKING:`

Prints each group of modules that import one another (a strongly connected component of the
import graph) and each pair that imports the other directly.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "attention_ref")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, here: str, is_package: bool, eager: bool, typing: bool) -> set[str]:
    names: set[str] = set()

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            typing_only = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            if typing_only and not typing:
                continue
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import) and not (eager and inner):
                names.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and not (eager and inner):
                base = child.module or ""
                if child.level:
                    package = here.split(".") if is_package else here.split(".")[:-1]
                    package = package[: len(package) - child.level + 1]
                    base = ".".join([*package, base] if base else package)
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return names


def graph(eager: bool, typing: bool) -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    modules = {module_name(p): p for p in files}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = imported(tree, name, path.name == "__init__.py", eager, typing)
        edges[name] = {t for t in targets if t in modules and t != name}
    return edges


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return sorted(found)


def main() -> int:
    eager, typing = "--eager" in sys.argv[1:], "--typing" in sys.argv[1:]
    edges = graph(eager, typing)
    groups = components(edges)
    pairs = sorted({tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges[b]})
    kinds = "eager only" if eager else "all (eager and lazy)"
    print(f"imports: {kinds}{', with TYPE_CHECKING' if typing else ''}")
    print(f"{len(groups)} cycle groups, {sum(map(len, groups))} modules in them")
    for group in groups:
        print("  group: " + ", ".join(group))
    print(f"{len(pairs)} pairs that import each other")
    for a, b in pairs:
        print(f"  {a} <-> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
