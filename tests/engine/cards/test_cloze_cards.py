"""Cloze cards: one blanked piece of a formula or of code, graded as text or as math."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.cards.cloze import ClozeItem

FIVE_LINES = """\
  - id: five-lines-scale
    kind: cloze
    tags: [implementation]
    prompt: Fill in the missing piece.
    text: |
      def attention(Q, K, V):
          S = Q @ {{c2::K.T}} / {{c1::np.sqrt(Q.shape[-1])::the scale}}
          A = softmax(S, axis=-1)
          return A @ V
    ask: 1
    accept: ["np.sqrt(d_k)"]
    mistakes:
      - answer: Q.shape[-1]
        message: the divisor is the square root of d_k.
    hint: Unit variance.
    explanation: The scale is √d_k.
"""

FORMULA = """\
  - id: formula-scale
    kind: cloze
    tags: [equation]
    prompt: Fill in the blank.
    text: "softmax(Q K^T / {{c1::sqrt(d_k)}}) V"
    check: expression
    positive: [d_k]
    mistakes:
      - answer: d_k
        message: not d_k itself.
    hint: h
    explanation: e
"""


def cloze(**fields: object) -> ClozeItem:
    return ClozeItem.model_validate({"id": "z", "kind": "cloze", "prompt": "Fill in.", **fields})


def test_a_cloze_item_loads_and_shows_only_its_own_blank(load_bank) -> None:
    loaded = load_bank(FIVE_LINES)
    assert loaded.problems == []
    (item,) = loaded.items
    assert isinstance(item, ClozeItem)
    assert item.prompt.startswith("Fill in the missing piece.\n\n")
    assert "S = Q @ K.T / [ ___ (the scale) ]" in item.prompt
    assert "np.sqrt" not in item.prompt
    assert item.answer_text() == "S = Q @ K.T / np.sqrt(Q.shape[-1])"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "no blank here"}, "needs at least one blank"),
        ({"text": "{{c1::a}} and {{c2::b}}"}, "say which one to ask with `ask`"),
        ({"text": "{{c1::a}}", "ask": 2}, "ask: 2 is not a blank of the text"),
        ({"text": "{{c1::a}} and {{c1::b}}"}, "the blanks c1 have different answers"),
        ({"text": "{{c1::a}} and {{c2:b}}", "ask": 1}, "not part of a {{cN::...}} blank"),
        ({"text": "{{c1::  }}"}, "a blank has no answer"),
        ({"text": "{{c1::a}}", "check": "regex"}, "check"),
    ],
)
def test_malformed_cloze_items_are_rejected_with_a_clear_message(
    fields: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError) as info:
        cloze(**fields)
    assert message in str(info.value)


def test_lint_reports_a_cloze_without_blanks_at_its_line(load_bank) -> None:
    loaded = load_bank(FORMULA.replace("{{c1::sqrt(d_k)}}", "sqrt(d_k)"))
    assert loaded.items == []
    assert any(p.startswith("quizzes/demo.yaml:7:") and "blank" in p for p in loaded.problems)


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("np.sqrt(Q.shape[-1])", True),
        ("  np.sqrt( Q.shape[ -1 ] ) ", True),
        ("np.sqrt(Q.shape[−1])", True),
        ("np.sqrt(d_k)", True),
        ("np.sqrt(Q.shape[0])", False),
        ("K.T", False),
    ],
)
def test_a_text_blank_is_graded_after_normalisation(load_bank, answer: str, correct: bool) -> None:
    (item,) = load_bank(FIVE_LINES).items
    verdict = item.grade(answer)
    assert verdict.correct is correct
    if not correct:
        assert "np.sqrt(Q.shape[-1])" in verdict.feedback


def test_a_known_wrong_piece_gets_its_message(load_bank) -> None:
    (item,) = load_bank(FIVE_LINES).items
    assert item.grade("Q.shape[-1]").feedback == "the divisor is the square root of d_k."


def test_an_empty_answer_is_unreadable() -> None:
    assert not cloze(text="x = {{c1::1}}").grade("   ").valid


@pytest.mark.parametrize(
    ("answer", "correct"),
    [("sqrt(d_k)", True), ("√d", True), ("d_k**0.5", True), ("dk^(1/2)", True), ("d_k", False)],
)
def test_an_expression_blank_accepts_any_equivalent_form(
    load_bank, answer: str, correct: bool
) -> None:
    (item,) = load_bank(FORMULA).items
    assert item.grade(answer).correct is correct


def test_an_expression_blank_names_a_known_mistake(load_bank) -> None:
    (item,) = load_bank(FORMULA).items
    assert item.grade("d").feedback == "not d_k itself."
    assert item.answer_text() == "softmax(Q K^T / sqrt(d_k)) V"


def test_a_cloze_item_survives_the_worker_round_trip(load_bank) -> None:
    for text in (FIVE_LINES, FORMULA):
        (item,) = load_bank(text).items
        again = ClozeItem.model_validate(item.model_dump(mode="json"))
        assert again.model_dump() == item.model_dump()
        assert again.prompt == item.prompt


def test_each_blank_of_one_text_is_its_own_card() -> None:
    text = "S = Q @ {{c1::K.T}} / {{c2::np.sqrt(d_k)}}"
    first, second = cloze(text=text, ask=1), cloze(text=text, ask=2)
    assert "S = Q @ [ ___ ] / np.sqrt(d_k)" in first.prompt
    assert "S = Q @ K.T / [ ___ ]" in second.prompt
    assert first.grade("K.T").correct and second.grade("np.sqrt(d_k)").correct
    assert first.answer_text() == second.answer_text() == "S = Q @ K.T / np.sqrt(d_k)"


def test_lint_flags_an_expression_blank_that_does_not_parse(load_bank) -> None:
    loaded = load_bank(FORMULA.replace("{{c1::sqrt(d_k)}}", "{{c1::sqrt(d_k}}"))
    assert loaded.problems, "an unbalanced parenthesis must be reported"


def test_lint_flags_a_mistake_that_is_accepted(load_bank) -> None:
    loaded = load_bank(FIVE_LINES.replace("answer: Q.shape[-1]", "answer: np.sqrt(d_k)"))
    assert any("is accepted as correct" in p for p in loaded.problems)
