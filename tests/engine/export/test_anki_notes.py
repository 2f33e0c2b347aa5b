"""Items as Anki notes, before any file is written: ids, cloze text, escaping, math."""

from __future__ import annotations

import re

import pytest

from engine.cards.choice import ChoiceItem
from engine.cards.cloze import ClozeItem
from engine.cards.recall import RecallItem
from engine.export.anki.html import prose
from engine.export.anki.mathjax import mathjax, to_latex
from engine.export.anki.models import CLOZE, FIELDS, RECALL, TYPED, deck_id, model_id
from engine.export.anki.notes import anki_tag, cloze_text, note_for, note_guid


def cloze(text: str, **more: object) -> ClozeItem:
    return ClozeItem.model_validate({"id": "c", "kind": "cloze", "text": text, **more})


def test_ids_depend_only_on_names_so_every_export_repeats_them() -> None:
    assert note_guid("15", "var-dot") == note_guid("15", "var-dot")
    assert note_guid("15", "var-dot") != note_guid("15", "std-dot")
    assert note_guid("15", "var-dot") != note_guid("16", "var-dot")
    assert deck_id("15") == deck_id("15") != deck_id("16")
    assert len({model_id(kind) for kind in (TYPED, RECALL, CLOZE)}) == 3
    for an_id in (deck_id("15"), model_id(TYPED)):
        assert 1 << 30 <= an_id < 1 << 31


def test_a_cloze_asks_only_its_own_blank_and_fills_in_the_others() -> None:
    item = cloze("a = {{c1::x}}; b = {{c2::y::a letter}}; c = {{c1::x}}", ask=2)
    text = cloze_text(item)
    assert re.findall(r"\{\{c\d+::", text) == ["{{c1::"]
    assert "{{c1::y::a letter}}" in text
    assert "a = x;" in text and "c = x" in text


def test_cloze_code_is_escaped_outside_and_inside_the_blank() -> None:
    item = cloze("M = 0 if j <= i else {{c1::-np.inf}}  # <mask>")
    text = cloze_text(item)
    assert "j &lt;= i" in text and "&lt;mask&gt;" in text and "<mask>" not in text
    assert text.startswith("<pre><code>")


def test_a_formula_cloze_shows_readable_symbols_around_the_typed_blank() -> None:
    item = cloze("softmax(Q K^T / {{c1::sqrt(d_k)}}) V", check="expression")
    text = cloze_text(item)
    assert "Q Kᵀ /" in text  # around the blank: as attnquiz shows it
    assert "{{c1::sqrt(d_k)}}" in text  # the blank: as the learner types it


def test_a_choice_lists_its_options_and_answers_with_the_letter() -> None:
    item = ChoiceItem.model_validate(
        {"id": "q", "kind": "choice", "prompt": "Which axis?", "options": ["rows", "keys"]}
        | {"answer": 2}
    )
    note = note_for(item, "demo")
    assert note.note_type == TYPED
    assert "<li>rows</li><li>keys</li>" in note.fields["Front"]
    assert note.fields["Answer"] == "B" and note.fields["Back"] == "B. keys"
    assert "shuffled" in note.fields["Note"]


def test_fields_follow_the_note_type_order() -> None:
    item = RecallItem.model_validate(
        {"id": "r", "kind": "recall", "prompt": "Why?", "back": "Because.", "hint": "Think."}
    )
    note = note_for(item, "demo")
    values = note.field_values()
    assert len(values) == len(FIELDS[RECALL])
    assert values[FIELDS[RECALL].index("Back")] == "<p>Because.</p>"
    assert values[FIELDS[RECALL].index("Item")] == "r"


def test_tags_never_contain_spaces() -> None:
    assert anki_tag("two words") == "two_words"
    assert " " not in anki_tag(" padded ")


@pytest.mark.parametrize(
    ("ascii_math", "latex"),
    [
        ("softmax(Q K^T / sqrt(d_k)) V", r"\operatorname{softmax}(Q K ^{\top} / \sqrt{d_{k}}) V"),
        ("(T_q, T_k)", "(T_{q}, T_{k})"),
        ("p_i (delta_ij - p_j)", r"p_{i} (\delta_{ij} - p_{j})"),
        ("4 T**2 d_k", "4 T ^{2} d_{k}"),
        ("K.T", r"K ^{\top}"),
        ("x^(1/2)", "x ^{1 / 2}"),
        ("exp(s_i) / sum_j exp(s_j)", r"\exp(s_{i}) / \sum_{j} \exp(s_{j})"),
    ],
)
def test_ascii_math_becomes_latex_in_the_authors_order(ascii_math: str, latex: str) -> None:
    assert to_latex(ascii_math) == latex


def test_mathjax_uses_the_inline_delimiters_anki_renders() -> None:
    shown = mathjax("sqrt(d_k)")
    assert shown.startswith(r"\(") and shown.endswith(r"\)")


def test_prose_joins_wrapped_lines_but_keeps_list_items_and_code() -> None:
    text = "A line wrapped\nby the author.\n1. first\n2. second\n\n    code()\n    more()\n"
    html = prose(text)
    assert "<p>A line wrapped by the author.<br>1. first<br>2. second</p>" in html
    assert "<pre><code>code()\nmore()</code></pre>" in html
