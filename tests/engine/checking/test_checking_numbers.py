"""Numeric answers: constant expressions compared within the stated tolerance."""

import math

import pytest

from engine.checking import check_number, evaluate_number
from engine.errors import AnswerError


@pytest.mark.parametrize(
    ("text", "value"),
    [("22.6", 22.6), ("sqrt(512)", math.sqrt(512)), ("512**0.5", math.sqrt(512)),
     ("√512", math.sqrt(512)), ("1e-3", 0.001), ("2/3", 2 / 3), ("512^(1/2)", math.sqrt(512)),
     ("\\sqrt{512}", math.sqrt(512)), ("−4", -4.0), ("2π", 2 * math.pi), ("exp(0)", 1.0)],
)  # fmt: skip
def test_constant_expressions_evaluate(text: str, value: float) -> None:
    assert evaluate_number(text) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text", ["d_k", "x + 1", "1/0", "sqrt(-1)", "", "16 MiB", "1e999"])
def test_non_numbers_are_refused(text: str) -> None:
    with pytest.raises(AnswerError, match="could not read this"):
        evaluate_number(text)


def test_a_rounded_answer_within_tolerance_is_correct_and_says_it_is_rounded() -> None:
    verdict = check_number("22.6", math.sqrt(512), abs_tol=0.1, rel_tol=None)
    assert verdict.correct
    assert "precision" in verdict.feedback
    assert verdict.interpreted_as == "22.6"


def test_an_exact_answer_is_correct_without_remark() -> None:
    verdict = check_number("sqrt(512)", math.sqrt(512), abs_tol=0.1, rel_tol=None)
    assert verdict.correct
    assert verdict.feedback == "correct"
    assert verdict.interpreted_as.endswith("= 22.6274")


def test_an_answer_outside_the_tolerance_is_wrong() -> None:
    verdict = check_number("22.4", math.sqrt(512), abs_tol=0.1, rel_tol=None)
    assert verdict.valid and not verdict.correct
    assert verdict.score == 0.0


def test_a_relative_tolerance_scales_with_the_answer() -> None:
    assert check_number("1010", 1000.0, abs_tol=None, rel_tol=0.02).correct
    assert not check_number("1030", 1000.0, abs_tol=None, rel_tol=0.02).correct


def test_without_a_tolerance_the_answer_must_be_exact() -> None:
    assert check_number("1/3", 1 / 3, abs_tol=None, rel_tol=None).correct
    assert not check_number("0.333", 1 / 3, abs_tol=None, rel_tol=None).correct


def test_an_unreadable_number_is_an_invalid_verdict() -> None:
    verdict = check_number("twentyish", 20.0, abs_tol=0.5, rel_tol=None)
    assert not verdict.valid
    assert verdict.feedback.startswith("could not read this")
