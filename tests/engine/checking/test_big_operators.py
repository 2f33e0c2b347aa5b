"""Sums and products over an index letter are read by meaning, whatever the letter."""

from __future__ import annotations

import pytest

from engine.checking import check_expression
from engine.checking.reading.big_operators import MAX_OPERATORS, expand_big_operators


@pytest.mark.parametrize(
    ("answer", "expected", "correct"),
    [
        ("Σ_{i=1}^{n} 1", "n", True),
        ("\\sum_{j=1}^{n} 2 x", "2 n x", True),
        ("sum_{a=1}^{m} sum_{b=1}^{n} c", "m n c", True),
        ("\\sum\\limits_{t=0}^{n} 1", "n + 1", True),
        ("\\prod_{i=1}^{3} x", "x^3", True),
        ("∏_{k=1}^{n} 2", "2^n", True),
        ("Σ_{i=1}^{n} x", "n + x", False),
        ("\\sum_{i=1}^{n-1} 1", "n", False),
        ("Σ_i q_i k_i", "q k", True),
        ("\\sum_{j=1}^{n} q_j * k_j", "q k", True),
        ("Σ_i q_i k_i / c", "q k / c", True),
    ],
)
def test_a_sum_over_any_index_letter_is_read_by_meaning(
    answer: str, expected: str, correct: bool
) -> None:
    verdict = check_expression(answer, expected)
    assert verdict.valid, verdict.feedback
    assert verdict.correct is correct, (answer, verdict.feedback)


def test_a_term_that_depends_on_its_index_is_not_multiplied_out() -> None:
    assert expand_big_operators("Σ_{i=1}^{n} x_i") == "Σ_{i=1}^{n} x_i"
    assert expand_big_operators("Σ_{j=1}^{i} j") == "Σ_{j=1}^{i} j"
    # d_k is a name of its own, so a sum over k of d_k does not depend on k.
    assert expand_big_operators("Σ_{k=1}^{n} d_k", {"d_k"}) != "Σ_{k=1}^{n} d_k"
    assert expand_big_operators("Σ_{k=1}^{n} d_k") == "Σ_{k=1}^{n} d_k"


def test_a_sum_without_bounds_is_left_for_the_parser_to_refuse() -> None:
    verdict = check_expression("Σ_i 1", "n")
    assert not verdict.valid


def test_many_sums_are_refused_quickly_not_expanded() -> None:
    text = "Σ_{i=1}^{n} " * (MAX_OPERATORS + 1) + "1"
    assert expand_big_operators(text) == text
    assert not check_expression(text * 200, "n").correct
