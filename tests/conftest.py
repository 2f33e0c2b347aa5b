"""Every test gets its own store folder, with the tiny fixture course as a user set."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def store_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "quizzes").mkdir(parents=True)
    shutil.copy(FIXTURES / "quizzes" / "demo.yaml", home / "quizzes" / "demo.yaml")
    monkeypatch.setenv("ATTNQUIZ_HOME", str(home))
    monkeypatch.delenv("ATTNQUIZ_NOW", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return home
