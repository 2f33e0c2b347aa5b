"""Multiple-choice parsing, and history that follows the item id when wording changes."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from engine.cards.choice import LETTERS, ChoiceItem, parse_choice, read_choice
from engine.cli import main


@given(st.integers(min_value=2, max_value=8), st.data())
def test_every_option_is_reachable_by_number_and_letter(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=n - 1))
    assert parse_choice(str(k + 1), n) == k
    assert parse_choice(LETTERS[k].lower(), n) == k
    assert parse_choice(f"({LETTERS[k]})", n) == k


@given(st.text(max_size=20))
def test_parse_choice_never_points_outside_the_options(text: str) -> None:
    pick = parse_choice(text, 4)
    assert pick is None or 0 <= pick < 4


OPTIONS = [
    "Line 2: d_k is wrong",
    "Line 3: divide by np.sqrt(d_k)",
    "O(T² d)",
    "M = np.where(k, 0, 1)",
]


@given(st.text(max_size=40))
def test_read_choice_never_points_outside_the_options(text: str) -> None:
    pick = read_choice(text, OPTIONS)
    assert pick is None or 0 <= pick < len(OPTIONS)


def test_a_choice_is_read_through_the_words_around_it_and_a_guess_is_wrong() -> None:
    item = ChoiceItem(id="c", kind="choice", prompt="p", options=OPTIONS, answer=2, shuffle=False)
    for right in ["**B**", "the answer is b", "B) Line 3: divide by np.sqrt(d_k)", "line 3 - why"]:
        assert item.grade(right).correct, right
    assert item.grade("C) Line 3: divide").valid is False  # the letter and the words disagree
    guess = item.grade("B or C")
    assert guess.valid and not guess.correct and "give one answer" in guess.feedback
    assert read_choice("O(d·T^2)", OPTIONS) == 2  # a formula option, its factors reordered
    assert read_choice("np.where(k, 0, 1)", OPTIONS) == 3  # an option `M = ...` by its right side


def test_rewording_an_item_keeps_its_history(store_home: Path, capsys, monkeypatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n"))
    assert main(["demo"]) == 0
    bank = store_home / "quizzes" / "demo.yaml"
    bank.write_text(
        bank.read_text().replace("Write the attention equation.", "State Attention(Q, K, V)."),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["stats", "demo", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["reviews"] == 1 and stats["learning"] == 1 and stats["retired"] == 0


def test_removing_an_item_retires_its_card_but_keeps_the_log(
    store_home: Path, capsys, monkeypatch
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n"))
    assert main(["demo"]) == 0
    bank = store_home / "quizzes" / "demo.yaml"
    text = bank.read_text()
    start = text.index("  - id: recall-one")
    end = text.index("  - id: choice-axis")
    bank.write_text(text[:start] + text[end:], encoding="utf-8")
    capsys.readouterr()
    assert main(["stats", "demo", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["cards"] == 6 and stats["retired"] == 1 and stats["reviews"] == 1
