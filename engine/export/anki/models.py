"""The three Anki note types of an export, and ids that stay the same from one export to the next.

Anki recognises a note type, a deck and a note by id (the note by its GUID) when a package is
imported again; then it updates them instead of adding copies. So every id here is derived from
names (a hash), never drawn at random, and the fields of a note type never change order.

- `typed`: the learner types an answer (numbers, shapes, expressions, choices, computed cards);
  Anki shows the typed text against `Answer`, the back shows `Back` (with MathJax).
- `recall`: the learner recalls the back and rates themselves.
- `cloze`: a formula or a few lines of code with one `{{c1::...}}` blank, typed.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import genanki

TYPED, RECALL, CLOZE = "typed", "recall", "cloze"
# Shared by every note type, after its own fields; `Item` is the attnquiz id of the note.
_COMMON = ["Hint", "Explanation", "Note", "Schedule", "Item"]
FIELDS: dict[str, list[str]] = {
    TYPED: ["Front", "Answer", "Back", *_COMMON],
    RECALL: ["Front", "Back", *_COMMON],
    CLOZE: ["Text", "Front", *_COMMON],
}
NAMES = {TYPED: "attnquiz typed answer", RECALL: "attnquiz recall", CLOZE: "attnquiz cloze"}
# Bump when a note type's fields change: Anki then sees a new note type instead of a conflict.
MODEL_VERSION = "1"

_HINT_FRONT = '{{#Hint}}<div class="hint">{{hint:Hint}}</div>{{/Hint}}'
_BACK_EXTRAS = """
{{#Hint}}<div class="hint"><b>Hint:</b> {{Hint}}</div>{{/Hint}}
{{#Explanation}}<div class="explanation">{{Explanation}}</div>{{/Explanation}}
{{#Note}}<div class="note">{{Note}}</div>{{/Note}}
{{#Schedule}}<div class="schedule">{{Schedule}}</div>{{/Schedule}}
<div class="item">attnquiz item {{Item}}</div>"""
_JUDGE = (
    '<div class="judge">Anki compares the characters; attnquiz accepts any equivalent answer, '
    "so judge by meaning.</div>"
)
_TEMPLATES = {
    TYPED: (
        '<div class="prompt">{{Front}}</div>\n' + _HINT_FRONT + "\n{{type:Answer}}",
        '<div class="prompt">{{Front}}</div>\n<hr id="answer">\n{{type:Answer}}\n'
        '<div class="answer">{{Back}}</div>\n' + _JUDGE + _BACK_EXTRAS,
    ),
    RECALL: (
        '<div class="prompt">{{Front}}</div>\n' + _HINT_FRONT,
        '<div class="prompt">{{Front}}</div>\n<hr id="answer">\n'
        '<div class="answer">{{Back}}</div>' + _BACK_EXTRAS,
    ),
    CLOZE: (
        '<div class="prompt">{{Front}}</div>\n<div class="cloze-text">{{cloze:Text}}</div>\n'
        + _HINT_FRONT
        + "\n{{type:cloze:Text}}",
        '<div class="prompt">{{Front}}</div>\n<div class="cloze-text">{{cloze:Text}}</div>\n'
        "{{type:cloze:Text}}" + _BACK_EXTRAS,
    ),
}
CSS = """\
.card { font-family: sans-serif; font-size: 19px; line-height: 1.45; text-align: left;
        max-width: 46em; margin: 0 auto; color: black; background: white; }
.nightMode .card, .night_mode .card { color: #eee; background: #222; }
pre { font-size: 16px; background: rgba(127, 127, 127, 0.12); padding: 0.5em 0.8em; }
.options li { margin: 0.2em 0; }
.answer { font-weight: bold; margin: 0.6em 0; }
.hint, .explanation, .note { margin-top: 0.8em; }
.judge, .schedule, .item { font-size: 14px; opacity: 0.6; margin-top: 0.8em; }
.cloze { font-weight: bold; color: #1565c0; }
"""


def stable_id(*parts: str) -> int:
    """An id in [2**30, 2**31) that depends only on `parts` (the range genanki recommends)."""
    digest = hashlib.sha256("\x1f".join(("attnquiz", *parts)).encode("utf-8")).digest()
    return (1 << 30) + int.from_bytes(digest[:8], "big") % (1 << 30)


def deck_id(set_name: str) -> int:
    return stable_id("deck", set_name)


def model_id(kind: str) -> int:
    return stable_id("note-type", kind, MODEL_VERSION)


def note_types() -> dict[str, genanki.Model]:
    """The genanki note types by kind (genanki is imported here, when an export runs)."""
    import genanki

    types = {}
    for kind, (front, back) in _TEMPLATES.items():
        types[kind] = genanki.Model(
            model_id(kind),
            NAMES[kind],
            fields=[{"name": name} for name in FIELDS[kind]],
            templates=[
                {"name": "Cloze" if kind == CLOZE else "Card 1", "qfmt": front, "afmt": back}
            ],
            css=CSS,
            model_type=genanki.Model.CLOZE if kind == CLOZE else genanki.Model.FRONT_BACK,
        )
    return types
