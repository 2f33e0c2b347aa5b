"""The exported set 15, imported into a real Anki collection: what a learner finds in Anki."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.bank.model import QuestionSet
from engine.cards.choice import ChoiceItem
from engine.cards.cloze import ClozeItem
from engine.cards.computed import ComputedItem
from engine.cards.exercise import ExerciseItem
from engine.cards.recall import RecallItem
from engine.export.anki.deck import export_anki
from engine.export.anki.notes import note_guid
from tests.engine.export.conftest import (
    anki_collection,
    import_package,
    notes_by_item,
    plain,
    words,
)

# Imports into a real Anki collection (the anki package is slow to load).
pytestmark = pytest.mark.slow

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def imported(
    bank15: QuestionSet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Set 15 exported once and imported into a fresh collection (shared: importing is the slow
    part, and these tests only read)."""
    folder = tmp_path_factory.mktemp("export")
    export_anki(bank15, folder / "15.apkg", T0)
    col = anki_collection(folder / "anki")
    import_package(col, folder / "15.apkg")
    yield col, notes_by_item(col)
    col.close()


def test_every_item_becomes_exactly_one_note_with_one_card(bank15, imported) -> None:
    col, notes = imported
    assert col.note_count() == len(bank15.items)
    assert col.card_count() == len(bank15.items)
    assert set(notes) == set(bank15.ids)


def test_notes_carry_the_guid_derived_from_set_and_item(bank15, imported) -> None:
    _, notes = imported
    for item in bank15.items:
        assert notes[item.id].guid == note_guid("15", item.id)
    assert len({note.guid for note in notes.values()}) == len(notes)


def test_the_front_shows_the_prompt(bank15, imported) -> None:
    _, notes = imported
    for item in bank15.items:
        note = notes[item.id]
        if isinstance(item, ClozeItem):
            assert words(item.instruction or "") in plain(note["Front"])
        else:
            assert words(item.at_seed(0).prompt) in plain(note["Front"]), item.id


def test_the_back_shows_the_answer(bank15, imported) -> None:
    _, notes = imported
    for item in bank15.items:
        note = notes[item.id]
        if isinstance(item, RecallItem):
            assert plain(note["Back"]) == words(item.back)
        elif isinstance(item, ExerciseItem):
            assert "<pre><code>" in note["Back"]
            assert plain(note["Back"]) == words(item.solution)
        elif isinstance(item, ChoiceItem):
            assert plain(note["Back"]).endswith(item.options[item.answer - 1])
            assert plain(note["Answer"]) == "ABCDEFGH"[item.answer - 1]
        elif not isinstance(item, ClozeItem):
            assert plain(note["Answer"]) == item.at_seed(0).answer_text(), item.id


def test_formula_answers_are_mathjax_on_the_rendered_back(imported) -> None:
    col, notes = imported
    note = notes["attention-equation"]
    back = note["Back"]
    assert back.startswith(r"\(") and back.endswith(r"\)")
    assert r"\sqrt{d_{k}}" in back and r"\top" in back
    rendered = col.get_card(note.card_ids()[0]).answer()
    assert r"\sqrt{d_{k}}" in rendered
    assert "[[type:Answer]]" in rendered  # Anki's reviewer puts the typed comparison there


def test_typed_items_get_a_type_in_note_and_recall_items_do_not(bank15, imported) -> None:
    _, notes = imported
    for item in bank15.items:
        template = notes[item.id].note_type()["tmpls"][0]["qfmt"]
        typed = "{{type:" in template
        # Code is not typed into a one-line Anki box: an exercise is recalled, then compared.
        assert typed == (not item.self_rated and not isinstance(item, ExerciseItem)), item.id


def test_cloze_items_are_cloze_notes_asking_one_blank(bank15, imported) -> None:
    from anki.models import MODEL_CLOZE

    col, notes = imported
    for item in bank15.items:
        note = notes[item.id]
        is_cloze = note.note_type()["type"] == MODEL_CLOZE
        assert is_cloze == isinstance(item, ClozeItem), item.id
        if is_cloze:
            assert note["Text"].count("{{c") == 1 and "{{c1::" in note["Text"]
            card = col.get_card(note.card_ids()[0])
            assert "[...]" in plain(card.question())
            assert item.asked().answer in plain(card.answer())


def test_tags_are_kept(bank15, imported) -> None:
    _, notes = imported
    for item in bank15.items:
        tags = set(notes[item.id].tags)
        assert set(item.tags) <= tags
        assert "attnquiz::15" in tags


def test_hint_and_explanation_are_on_the_back(imported) -> None:
    col, notes = imported
    note = notes["attention-equation"]
    back = plain(col.get_card(note.card_ids()[0]).answer())
    assert "Three steps" in back  # the hint
    assert "unit variance" in back  # the explanation


def test_a_varying_computed_card_is_one_instance_and_says_so(bank15, imported) -> None:
    _, notes = imported
    varying = [i for i in bank15.items if isinstance(i, ComputedItem) and i.vary]
    assert varying, "set 15 has computed items that draw new inputs"
    for item in varying:
        note = notes[item.id]
        assert "draws new values" in plain(note["Note"])
        assert plain(note["Answer"]) == item.at_seed(0).answer_text()
        assert words(item.at_seed(0).prompt) in plain(note["Front"])


def test_exporting_again_updates_the_notes_instead_of_adding_copies(
    bank15: QuestionSet, tmp_path: Path
) -> None:
    col = anki_collection(tmp_path / "anki")
    try:
        export_anki(bank15, tmp_path / "first.apkg", T0)
        import_package(col, tmp_path / "first.apkg")
        before = {item: note.guid for item, note in notes_by_item(col).items()}
        note_types = sorted(n.name for n in col.models.all_names_and_ids())
        decks = sorted(d.name for d in col.decks.all_names_and_ids())

        reworded = "Why is V outside the softmax? (reworded for the re-export test)"
        items = tuple(
            item.model_copy(update={"prompt": reworded}) if item.id == "v-outside-softmax" else item
            for item in bank15.items
        )
        changed = QuestionSet(bank15.name, bank15.title, items)
        export_anki(changed, tmp_path / "second.apkg", T0 + timedelta(minutes=5))
        log = import_package(col, tmp_path / "second.apkg")

        after = notes_by_item(col)
        assert col.note_count() == len(bank15.items)
        assert len(log.new) == 0 and len(log.conflicting) == 0
        assert {item: note.guid for item, note in after.items()} == before
        assert plain(after["v-outside-softmax"]["Front"]) == reworded
        # The same note types and deck, recognised by their ids: no "attnquiz typed answer-1".
        assert sorted(n.name for n in col.models.all_names_and_ids()) == note_types
        assert sorted(d.name for d in col.decks.all_names_and_ids()) == decks
    finally:
        col.close()
