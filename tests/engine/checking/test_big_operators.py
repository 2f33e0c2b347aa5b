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
        # A term that depends on its index: a sum (or product) over the whole family.
        ("Σ_k exp(s_k)", "sum_j exp(s_j)", True),
        ("\\sum_{j=1}^{T} e^{s_j}", "sum_j exp(s_j)", True),
        ("sum_i exp(s_i)", "\\sum_{j=1}^{n} e^{s_j}", True),
        ("Σ_j e^(x_j − m)", "sum_j exp(x_j - m)", True),
        ("exp(-m) Σ_j exp(x_j)", "sum_j exp(x_j - m)", True),
        ("Σ_j exp(x_j) / e^m", "sum_j exp(x_j - m)", True),
        ("e^{s_i} / \\sum_{k=1}^{T} e^{s_k}", "exp(s_i) / sum_j exp(s_j)", True),
        ("2 Σ_j exp(s_j)", "Σ_j 2 exp(s_j)", True),
        ("Σ_j exp(x_j) - m", "sum_j exp(x_j - m)", False),
        ("Σ_j exp(2 s_j)", "sum_j exp(s_j)", False),
        ("Σ_k s_k", "sum_j exp(s_j)", False),
        ("Σ_j exp(s_j) + 1", "sum_j exp(s_j)", False),
        ("Σ_j exp(s_j)", "exp(s_i) / sum_j exp(s_j)", False),
        # Another member of the family (s_j, with s_i and s_j in the bank's answer) reads.
        ("exp(s_j) / Σ_k exp(s_k)", "exp(s_i) / sum_j exp(s_j)", False),
        ("exp(s_i) / Σ_k exp(s_k)", "exp(s_i) / sum_j exp(s_j)", True),
        ("prod_j p_j", "\\prod_{i=1}^{n} p_i", True),
        ("Π_k exp(s_k)", "exp(Σ_j s_j)", True),
        ("Π_k s_k", "Σ_j s_j", False),
        # The number of terms is not fixed: Π_j 2 s_j is 2^n Π_j s_j, not 8 Π_j s_j.
        ("Π_k 2 s_k", "8 Π_j s_j", False),
        # A sum written out with an ellipsis is the same sum.
        ("e^{s_1 - m} + ... + e^{s_n - m}", "sum_j exp(s_j - m)", True),
        ("exp(s_1) + exp(s_2) + … + exp(s_T)", "sum_j exp(s_j)", True),
        ("e^{s_1}+\\cdots+e^{s_n}", "sum_j exp(s_j)", True),
        ("exp(s_i) / (exp(s_1) + ... + exp(s_n))", "exp(s_i) / sum_j exp(s_j)", True),
        ("q_1 k_1 + q_2 k_2 + ... + q_n k_n", "q k", True),
        ("1 + x_1 + ... + x_n", "1 + Σ_j x_j", True),
        ("x_1 + ... + x_n", "Σ_j x_j^2", False),
    ],
)
def test_a_sum_over_any_index_letter_is_read_by_meaning(
    answer: str, expected: str, correct: bool
) -> None:
    verdict = check_expression(answer, expected)
    assert verdict.valid, verdict.feedback
    assert verdict.correct is correct, (answer, verdict.feedback)


def test_a_term_that_depends_on_its_index_is_a_sum_over_the_family_not_multiplied_out() -> None:
    # Over the whole family the index letter does not matter: it becomes the first free one.
    assert expand_big_operators("Σ_{i=1}^{n} x_i") == "sum(x_j, j)"
    assert expand_big_operators("Σ_k exp(s_k)") == expand_big_operators("sum_j exp(s_j)")
    assert expand_big_operators("p_j Σ_j s_j") == "p_j sum(s_k, k)"
    assert expand_big_operators("Π_{j=1}^{n} x_j") == "prod(x_j, j)"
    # Up to another index, or to a number, is left as written for the parser to refuse by name.
    assert expand_big_operators("Σ_{j=1}^{i} j") == "Σ_{j=1}^{i} j"
    assert expand_big_operators("Σ_{j=1}^{3} x_j") == "Σ_{j=1}^{3} x_j"
    # d_k is a name of its own, so a sum over k of d_k does not depend on k.
    assert expand_big_operators("Σ_{k=1}^{n} d_k", {"d_k"}) == "(((n) - (1) + 1)*(d_k))"
    assert expand_big_operators("Σ_{k=1}^{n} d_k") == "sum(d_j, j)"


def test_a_series_that_is_not_one_term_from_1_to_a_count_is_left_as_written() -> None:
    for text in ("x_2 + ... + x_n", "x_1 + ... + x_i", "a + ... + b", "...", "x_1 + ... + y_n"):
        assert expand_big_operators(text) == text


def test_a_sum_without_bounds_is_left_for_the_parser_to_refuse() -> None:
    verdict = check_expression("Σ_i 1", "n")
    assert not verdict.valid


def test_many_sums_are_refused_quickly_not_expanded() -> None:
    text = "Σ_{i=1}^{n} " * (MAX_OPERATORS + 1) + "1"
    assert expand_big_operators(text) == text
    assert not check_expression(text * 200, "n").correct
