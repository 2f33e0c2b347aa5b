"""Lint's warnings: a hint that gives its item's answer away, and a right option that is the
longest too often. The hint check is measured on a corpus of hints a careful reviewer judged
(cases/hint_giveaways.tsv)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.bank.giveaways import hint_giveaway, longest_option_share, longest_option_warning
from engine.cards import KINDS
from engine.cards.base import Item
from engine.cli import main

CASES = Path(__file__).with_name("cases") / "hint_giveaways.tsv"
REPO = Path(__file__).resolve().parents[3]


def read_cases() -> list[tuple[str, dict[str, object], str, bool]]:
    rows = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        kind, fields, hint, verdict = line.split("\t")
        rows.append((kind, yaml.safe_load(fields), hint, verdict == "yes"))
    return rows


def card(kind: str, fields: dict[str, object], hint: str | None, n: int = 0) -> Item:
    data = {"id": f"case-{n}", "kind": kind, "prompt": "p", "hint": hint, **fields}
    return KINDS[kind].model_validate(data)


ALL = read_cases()


@pytest.mark.parametrize(("kind", "fields", "hint", "gives_away"), [c for c in ALL if not c[3]])
def test_an_honest_hint_is_never_flagged(kind, fields, hint, gives_away) -> None:
    assert hint_giveaway(card(kind, fields, hint)) is None


def test_agreement_with_the_reviewed_corpus() -> None:
    """A hint that states the answer, in any spelling, or a calculation that gives it is
    caught; one that gives it away by reasoning ("keys 1, 2, …, i") is left to the author."""
    flagged = [(hint_giveaway(card(k, f, h)) is not None, g) for k, f, h, g in ALL]
    agree = sum(found == wanted for found, wanted in flagged)
    caught = sum(found for found, wanted in flagged if wanted)
    wanted = sum(g for *_, g in ALL)
    print(
        f"hint giveaways: {agree}/{len(ALL)} agree with the reviewed corpus; "
        f"{caught}/{wanted} giveaways caught, no false alarm on {len(ALL) - wanted} honest hints"
    )
    assert len(ALL) >= 40 and wanted >= 15
    assert agree >= 0.9 * len(ALL)


def test_the_warning_quotes_the_hint_as_written() -> None:
    item = card("number", {"answer": "sqrt(512)", "abs_tol": 0.1}, "Note that √512 = 16 √2.")
    assert hint_giveaway(item) == "the hint gives the answer away: '√512' works out to the answer"


def test_a_hostile_hint_gets_no_warning_and_no_error() -> None:
    for hint in ("9^9^9^9^9", "(" * 300, "e" * 3000, "1/0 + ln(0)", "√" * 500 + "2"):
        assert hint_giveaway(card("number", {"answer": 3, "abs_tol": 0.1}, hint)) is None


def choice(answer_length: int, n: int) -> Item:
    options = ["x" * 20, "y" * 30, "z" * answer_length]
    return card("choice", {"options": options, "answer": 3}, None, n)


def test_right_options_that_are_mostly_the_longest_are_a_cue() -> None:
    cued = [choice(40, n) for n in range(6)] + [choice(10, 6)]
    assert longest_option_share(cued) == (6, 7)
    assert "in 6 of 7 multiple-choice items the right option is the longest" in str(
        longest_option_warning(cued)
    )
    assert longest_option_warning([choice(10, n) for n in range(7)]) is None


def test_the_shipped_bank_does_not_cue_the_right_option_by_its_length() -> None:
    from tests.engine.cards.bank_answers import set_15

    longest, total = longest_option_share(set_15().items)
    print(f"set 15: the right option is the longest in {longest} of {total} choice items")
    assert total >= 30 and longest / total <= 0.25


def test_lint_prints_warnings_but_passes(tmp_path: Path, capsys) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(
        "format_version: 1\nset: demo\ntitle: Demo\nitems:\n"
        "  - id: kt\n    kind: shape\n    prompt: Shape of Kᵀ?\n    answer: (d_k, T_k)\n"
        "    hint: It is (d_k, T_k).\n    siblings: [alone]\n",
        encoding="utf-8",
    )
    assert main(["lint", str(path)]) == 0
    captured = capsys.readouterr()
    assert f"{path}:5: warning: item 'kt': the hint gives the answer away" in captured.err
    assert f"{path}:5: warning: item 'kt' is alone in sibling group 'alone'" in captured.err
    assert "(2 warning(s))" in captured.out


# The shipped banks lint without warnings: test_lint.py's test of the shipped banks, which
# lints them once for both.
