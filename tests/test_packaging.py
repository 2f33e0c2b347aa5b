"""The wheel carries the question banks, so a non-editable install can run `attnquiz 15`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_ships_every_bank_and_the_type_marker(tmp_path: Path) -> None:
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = tmp_path.glob("attnquiz-*.whl")
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
