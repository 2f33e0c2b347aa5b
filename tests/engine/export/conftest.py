"""A real Anki collection to import the exported packages into, and reading notes back."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet


def anki_collection(folder: Path) -> Any:
    """A new, empty Anki collection in `folder` (the `anki` package from the test extra)."""
    from anki.collection import Collection

    folder.mkdir(parents=True, exist_ok=True)
    return Collection(str(folder / "collection.anki2"))


def import_package(col: Any, package: Path, *, with_scheduling: bool = False) -> Any:
    """Import as Anki's dialog does by default: update notes only from a newer package."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    options = ImportAnkiPackageOptions(with_scheduling=with_scheduling)
    return col.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=options)
    ).log


def notes_by_item(col: Any) -> dict[str, Any]:
    """Every note of the collection by its attnquiz item id (the `Item` field)."""
    found = {}
    for note_id in col.find_notes(""):
        note = col.get_note(note_id)
        found[html.unescape(note["Item"])] = note
    return found


def plain(field: str) -> str:
    """A field's HTML as the words a learner reads: tags dropped, entities decoded, spaces
    collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", field)).split())


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def bank15(tmp_path_factory: pytest.TempPathFactory) -> QuestionSet:
    """The built-in set 15 (the store folder is empty: no user's items added)."""
    return open_set("15", tmp_path_factory.mktemp("store"))


@pytest.fixture
def collection(tmp_path: Path) -> Iterator[Any]:
    col = anki_collection(tmp_path / "anki")
    yield col
    col.close()
