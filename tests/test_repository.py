"""The repository keeps its promises about itself: CI runs the README's test command, and the
documents the code cites ship with it."""

from __future__ import annotations

import re
from pathlib import Path

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
