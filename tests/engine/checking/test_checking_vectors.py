"""Vectors and small matrices of numbers: read like paper or NumPy, graded entry by entry."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from engine.checking import check_vector, parse_vector
from engine.errors import AnswerError, BankError

TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "vectors.yaml").read_text("utf-8"))
ROWS = [
    pytest.param(spec, *row, *[None] * (3 - len(row)), id=f"{name}|{row[1]}|{row[0]}")
    for name, spec in TABLE.items()
    for row in spec["cases"]
]


@pytest.mark.parametrize(("spec", "answer", "expected", "fragment"), ROWS)
def test_vector_answers_are_graded_entry_by_entry(
    spec: dict, answer: str, expected: str, fragment: str | None
) -> None:
    verdict = check_vector(
        answer, spec["expected"], abs_tol=spec.get("abs_tol"), rel_tol=spec.get("rel_tol")
    )
    got = "correct" if verdict.correct else "wrong" if verdict.valid else "unreadable"
    assert got == expected, verdict
    if fragment is not None:
        assert fragment.lower() in verdict.feedback.lower(), verdict


@pytest.mark.parametrize(
    ("text", "numbers"),
    [("[0.5, 0.5]", [0.5, 0.5]), ("(1, 2, 3)", [1.0, 2.0, 3.0]), ("[[3, 4]]", [[3.0, 4.0]]),
     ("[1 0; 0 1]", [[1.0, 0.0], [0.0, 1.0]]), ("[[1 0] [0 1]]", [[1.0, 0.0], [0.0, 1.0]]),
     ("[−1, +2]", [-1.0, 2.0]), ("[1 -2 3]", [1.0, -2.0, 3.0]), ("[1 - 2]", [-1.0]),
     ("(0.5,)", [0.5]), ("[sqrt(2)/2, √2/2]", [math.sqrt(2) / 2] * 2), ("4", [4.0])],
)  # fmt: skip
def test_parse_vector_reads_paper_and_numpy_forms(text: str, numbers: list) -> None:
    np.testing.assert_allclose(parse_vector(text), numbers, rtol=1e-12)


def test_partial_credit_is_the_fraction_of_right_entries() -> None:
    verdict = check_vector("[1, 2, 0, 0]", [1, 2, 3, 4])
    assert verdict.score == 0.5
    assert "entry 3 (0) is too low, entry 4 (0) is too low" in verdict.feedback


def test_many_wrong_entries_are_summarised() -> None:
    verdict = check_vector(str([0] * 10), list(range(1, 11)))
    assert "6 more are off" in verdict.feedback


def test_a_rounded_answer_says_it_is_rounded_and_an_exact_one_does_not() -> None:
    assert check_vector("[0.33]", [1 / 3], abs_tol=0.01).feedback == (
        "correct to the stated precision"
    )
    assert check_vector("[1/3]", [1 / 3]).feedback == "correct"


@pytest.mark.parametrize(
    "answer",
    ["[__import__('os').system('x'), 1]", "[1, 2]" * 2000, "[" * 100 + "1" + "]" * 100,
     "[" + ", ".join(["1"] * 300) + "]", "[9**9**9**9, 1]", "[[[[1]]]]", "[1, 2)", "[1, 'a']"],
)  # fmt: skip
def test_hostile_vectors_are_refused_with_a_message(answer: str) -> None:
    verdict = check_vector(answer, [1.0, 2.0])
    assert not verdict.valid and verdict.feedback.startswith("could not read this")
    with pytest.raises(AnswerError):
        parse_vector(answer)


@pytest.mark.parametrize("expected", [[], [[1, 2], [3]], "abc", [float("nan")], 3.0])
def test_an_unusable_expected_value_is_a_bank_error(expected: object) -> None:
    with pytest.raises(BankError):
        check_vector("[1]", expected)  # type: ignore[arg-type]
