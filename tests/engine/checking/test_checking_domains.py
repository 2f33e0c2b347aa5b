"""Equivalence is judged on the domain a question declares: ranges, integers, Kronecker deltas."""

from __future__ import annotations

import pytest

from engine.checking import check_expression
from engine.checking.equivalence.domain import Domain, declare_domain
from engine.checking.equivalence.expression import equivalent, read_expression
from engine.checking.reading.safe_ast import Vocabulary
from engine.errors import BankError


def test_a_range_makes_answers_equal_that_agree_only_inside_it() -> None:
    # sqrt(p²) is p only for p ≥ 0, and |p − 2| is 2 − p only for p < 2.
    for answer, expected in [("sqrt(p^2)", "p"), ("abs(p - 2)", "2 - p"), ("abs(p)", "p")]:
        assert check_expression(answer, expected, ranges={"p": (0, 1)}).correct
        assert not check_expression(answer, expected).correct


def test_a_probability_range_is_open_so_log_of_zero_never_decides() -> None:
    verdict = check_expression("log(p) - log(1 - p)", "log(p/(1 - p))", ranges={"p": (0, 1)})
    assert verdict.correct


def test_ranges_apply_to_the_entries_of_a_kronecker_family() -> None:
    expected = "p_i (delta_ij - p_j)"
    ranges = {"p_i": (0.0, 1.0), "p_j": (0.0, 1.0)}
    assert check_expression("abs(p_i) (delta_ij - abs(p_j))", expected, ranges=ranges).correct
    assert not check_expression("abs(p_i) (delta_ij - abs(p_j))", expected).correct


def test_an_integer_range_takes_its_whole_numbers() -> None:
    # (-1)^(2n) = 1 for whole n; for n = 1/2 it would be -1.
    assert check_expression("(-1)^(2 n)", "1", integer=["n"], ranges={"n": (1, 6)}).correct
    assert not check_expression("(-1)^(2 n)", "1", ranges={"n": (0.1, 0.9)}).correct


@pytest.mark.parametrize("bounds", [(1, 0), (0, float("inf")), ("a", 1), (1,), (0.2, 0.8)])
def test_an_unusable_range_is_a_bank_error(bounds: object) -> None:
    integer = ["n"] if bounds == (0.2, 0.8) else []  # no whole number between 0.2 and 0.8
    with pytest.raises(BankError, match="range of n"):
        check_expression("n", "n", integer=integer, ranges={"n": bounds})  # type: ignore[dict-item]


def test_kronecker_points_cover_both_the_diagonal_and_off_it() -> None:
    import numpy as np
    import sympy

    symbols = sympy.symbols("delta_ij p_i p_j")
    sampler = Domain().sampler(symbols)
    rng = np.random.default_rng(0)
    points = [sampler.sample(rng, n) for n in range(8)]
    delta, p_i, p_j = symbols
    assert {point[delta] for point in points} == {0, 1}
    for point in points:
        assert (point[p_i] == point[p_j]) == (point[delta] == 1)


def test_without_kronecker_semantics_delta_is_an_ordinary_symbol() -> None:
    vocabulary = Vocabulary(symbols=frozenset({"delta_ij", "p_i", "p_j"}))
    a = read_expression("p_j (delta_ij - p_i)", vocabulary)
    b = read_expression("p_i (delta_ij - p_j)", vocabulary)
    assert equivalent(a, b, vocabulary)
    assert not equivalent(a, b, vocabulary, kronecker=False)


def test_an_undecided_comparison_is_never_correct() -> None:
    # max of a complex number is undefined at every point, and max is too opaque to simplify:
    # the checker cannot decide, so the answer is not judged correct.
    verdict = check_expression("max(sqrt(-d), 2)", "max(sqrt(-d), 1)", positive=["d"])
    assert verdict.valid and not verdict.correct
    # Where SymPy can prove the difference is 0 without the numbers, it still decides.
    answer = "max(sqrt(-d), 1) + (d + 1)^2 - d^2 - 2 d - 1"
    assert check_expression(answer, "max(sqrt(-d), 1)", positive=["d"]).correct


def test_declared_domains_are_checked_once_at_the_edge() -> None:
    domain = declare_domain(positive=["d_k"], integer=["d_k"], ranges={"d_k": (1, 512)})
    assert domain.ranges == {"d_k": (1.0, 512.0)}
    assert domain.kronecker
