"""What most commands start with: the store folder, the set, the store."""

from __future__ import annotations

from pathlib import Path

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.paths import store_dir
from engine.store import Store, open_store


def load(set_name: str, data_dir: Path | None) -> tuple[Path, QuestionSet]:
    folder = store_dir(data_dir)
    return folder, open_set(set_name, folder)


def load_with_store(set_name: str, data_dir: Path | None) -> tuple[QuestionSet, Store]:
    folder, qset = load(set_name, data_dir)
    return qset, open_store(folder)
