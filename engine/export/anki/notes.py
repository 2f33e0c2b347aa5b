"""One Anki note per item: which note type, what goes in each field, its tags and its GUID.

The front is the item's prompt, the back its answer as attnquiz shows it (math as MathJax),
with the hint and the explanation. Cards that attnquiz changes from review to review are
exported as one fixed instance, and the note says so: computed cards draw new inputs at every
review (the export shows the bank's own, `at_seed(0)`), and choices are shuffled (the export
lists them in the bank's order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from engine.cards.base import Item
from engine.cards.choice import LETTERS, ChoiceItem
from engine.cards.cloze import ClozeItem, find_blanks
from engine.cards.computed import ComputedItem
from engine.cards.exercise import ExerciseItem
from engine.cards.recall import RecallItem
from engine.cards.typed import NumberItem
from engine.export.anki.html import code_block, escape, options_list, prose
from engine.export.anki.mathjax import mathjax
from engine.export.anki.models import CLOZE, FIELDS, RECALL, TYPED
from engine.mathtext import pretty_math

# Answers that are formulas: shown with MathJax on the back.
FORMULA_KINDS = {"expression", "shape"}


@dataclass(frozen=True)
class AnkiNote:
    """What one item becomes: the note type, its fields by name, tags and GUID."""

    item_id: str
    kind: str  # the item's kind (recall, choice, ...), for the summary
    note_type: str  # TYPED, RECALL or CLOZE
    guid: str
    fields: dict[str, str]
    tags: list[str] = field(default_factory=list)

    def field_values(self) -> list[str]:
        """The fields in the note type's order."""
        return [self.fields.get(name, "") for name in FIELDS[self.note_type]]

    def with_field(self, name: str, text: str) -> AnkiNote:
        """This note with one field's plain text set (escaped here)."""
        return replace(self, fields={**self.fields, name: escape(text)})


def note_guid(set_name: str, item_id: str) -> str:
    """The note's GUID: the same set and item id give the same GUID in every export."""
    import genanki

    return str(genanki.guid_for("attnquiz", set_name, item_id))


def anki_tag(tag: str) -> str:
    """Anki separates tags by spaces, so a tag cannot contain one."""
    return re.sub(r"\s+", "_", tag.strip())


def note_for(item: Item, set_name: str) -> AnkiNote:
    """The note of one item of set `set_name`."""
    shown = item.at_seed(0)  # computed cards: the bank's own inputs, the same in every export
    common = {
        "Hint": prose(shown.hint or ""),
        "Explanation": prose(shown.explanation or ""),
        "Note": escape(_varies_note(item)),
        "Item": escape(item.id),
    }
    if isinstance(shown, ClozeItem):
        note_type = CLOZE
        fields = {"Text": cloze_text(shown), "Front": prose(shown.instruction or "")}
    elif isinstance(shown, RecallItem):
        note_type = RECALL
        fields = {"Front": prose(shown.prompt), "Back": prose(shown.back)}
    elif isinstance(shown, ExerciseItem):
        # Written from memory on paper or in an editor, then compared with the solution.
        note_type = RECALL
        fields = {
            "Front": prose(shown.prompt) + code_block(shown.signature),
            "Back": code_block(shown.solution),
        }
    elif isinstance(shown, ChoiceItem):
        note_type = TYPED
        letter = LETTERS[shown.answer - 1]
        fields = {
            "Front": prose(shown.prompt) + options_list(list(shown.options)),
            "Answer": letter,
            "Back": escape(f"{letter}. {shown.answer_text()}"),
        }
    else:
        note_type = TYPED
        plain = shown.answer_text()
        fields = {
            "Front": prose(shown.prompt),
            "Answer": escape(plain),
            "Back": _shown(shown, plain),
        }
    tags = [anki_tag(t) for t in item.tags] + [anki_tag(f"attnquiz::{set_name}")]
    return AnkiNote(
        item_id=item.id,
        kind=item.kind,
        note_type=note_type,
        guid=note_guid(set_name, item.id),
        fields={**common, **fields},
        tags=tags,
    )


def _shown(item: Item, text: str) -> str:
    """The back's answer (`text`, as attnquiz shows it): formulas as MathJax, numbers as text."""
    if item.kind in FORMULA_KINDS:
        return mathjax(text)
    if isinstance(item, NumberItem) and isinstance(item.answer, str):
        # "sqrt(512) ≈ 22.63": the bank's expression as math, then its value.
        rest = text[len(item.answer) :] if text.startswith(item.answer) else ""
        return mathjax(item.answer) + escape(rest)
    return escape(text)


def _varies_note(item: Item) -> str:
    if isinstance(item, ComputedItem) and item.vary:
        return (
            f"In attnquiz this card draws new values of {', '.join(item.vary)} at every review; "
            "this is one fixed instance (the bank's own numbers)."
        )
    if isinstance(item, ChoiceItem) and item.shuffle:
        return "In attnquiz the options are shuffled at every review; here they keep one order."
    return ""


def cloze_text(item: ClozeItem) -> str:
    """The item's text as an Anki cloze: its asked blank as {{c1::...}}, the others filled in.

    One attnquiz item asks one blank, so the note has exactly one card, like the item.
    Code is shown as a code block; a formula keeps its line, with the readable symbols of
    `pretty_math` around the blank (the blank keeps the bank's spelling, as it is typed).
    """
    asked = item.asked().number
    pieces: list[str] = []
    pos = 0
    for blank in find_blanks(item.text):
        pieces.append(_cloze_context(item, item.text[pos : blank.start]))
        if blank.number == asked:
            hint = f"::{escape(blank.hint)}" if blank.hint else ""
            pieces.append(f"{{{{c1::{escape(blank.answer)}{hint}}}}}")
        else:
            pieces.append(_cloze_context(item, blank.answer))
        pos = blank.end
    pieces.append(_cloze_context(item, item.text[pos:]))
    body = "".join(pieces).strip("\n")
    if item.check == "text":
        return f"<pre><code>{body}</code></pre>"
    return f'<div class="formula">{body}</div>'


def _cloze_context(item: ClozeItem, text: str) -> str:
    """Text around the blank: code verbatim, formulas in readable symbols; escaped either way."""
    return escape(text if item.check == "text" else pretty_math(text))
