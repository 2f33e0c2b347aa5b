"""Set 15's coding exercises, loaded once from the shipped bank."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.cards.exercise import ExerciseItem


@pytest.fixture(scope="module")
def exercises(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ExerciseItem]:
    qset = open_set("15", tmp_path_factory.mktemp("store"))
    return {item.id: item for item in qset.items if isinstance(item, ExerciseItem)}


def write(folder: Path, name: str, code: str) -> Path:
    path = folder / name
    path.write_text(code, encoding="utf-8")
    return path
