"""Vector cards: a list of numbers, entry by entry within the tolerance, in any list notation."""

from __future__ import annotations

import json

import pytest

from engine.cli import main


@pytest.mark.parametrize(
    "answer",
    ["[0.66, 0.24, 0.10]", "0.659 0.242 0.099", "(0.659, 0.242, 0.099)", "[0.659 0.242 0.0986]"],
)
def test_the_softmax_vector_in_any_list_notation(answer: str, capsys) -> None:
    assert main(["check", "15", "softmax-2-1-01-vector", "--answer", answer]) == 0


def test_a_known_wrong_vector_gets_its_message(capsys) -> None:
    code = main(
        ["check", "15", "softmax-2-1-01-vector", "--answer", "[0.645, 0.323, 0.032]", "--json"]
    )
    assert code == 1
    assert "divides each score by the sum" in json.loads(capsys.readouterr().out)["feedback"]


def test_wrong_entries_are_named(capsys) -> None:
    assert main(["check", "15", "identity-output-row", "--answer", "[0.7355, 0.9]", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] and "entry 2" in out["feedback"]


def test_the_symmetric_jacobian_form_is_accepted(capsys) -> None:
    assert main(["check", "15", "softmax-grad", "--answer", "p_j (δ_ij − p_i)"]) == 0
