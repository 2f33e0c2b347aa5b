"""The wheel carries the question banks, so a non-editable install can run `attnquiz 15`."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_ships_every_bank_and_the_type_marker(attnquiz_wheel: Path) -> None:
    wheel = attnquiz_wheel  # built by `pip wheel` once per run (conftest)
    names = set(zipfile.ZipFile(wheel).namelist())
    banks = {
        f"engine/quizzes/{p.relative_to(ROOT / 'quizzes')}"
        for p in (ROOT / "quizzes").rglob("*.yaml")
    }
    assert banks and banks <= names
    assert "engine/py.typed" in names
    assert "engine/cli.py" in names
    # Every module ships: a subpackage missing from `[tool.setuptools] packages` would not.
    modules = {
        str(p.relative_to(ROOT))
        for package in ("engine", "attention_ref")
        for p in (ROOT / package).rglob("*.py")
    }
    assert modules - names == set()
