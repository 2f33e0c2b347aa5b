"""Helpers for card-kind tests: write a one-file bank and load it as lint does."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bank.loader import LoadedFile, load_bank_file
from tests.conftest import warm_checker

HEADER = "format_version: 1\nset: demo\ntitle: Demo\nsymbols:\n  d_k: [d, dk]\nitems:\n"


@pytest.fixture
def load_bank(tmp_path: Path):
    """Load the given items text (YAML, indented as under `items:`) with deep checks."""

    def load(items: str) -> LoadedFile:
        path = tmp_path / "demo.yaml"
        path.write_text(HEADER + items, encoding="utf-8")
        return load_bank_file(path, "quizzes/demo.yaml", checker=warm_checker())

    return load
