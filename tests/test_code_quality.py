"""The code base stays lint-clean, formatted and type-checked (ruff, mypy from the test extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["engine", "attention_ref", "tests", "benchmarks"]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing() -> None:
    result = run_tool("ruff", "check", *SOURCES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted() -> None:
    result = run_tool("ruff", "format", "--check", *SOURCES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_errors() -> None:
    result = run_tool("mypy", "engine", "attention_ref")
    assert result.returncode == 0, result.stdout + result.stderr
