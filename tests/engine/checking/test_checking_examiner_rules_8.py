"""Rules a fair examiner follows that the held-out corpus 8 showed missing.

Each test states one rule with answers of its own, not rows of the corpus, and the cases the
rule must leave alone.
"""

from __future__ import annotations

import pytest

from engine.bank.model import QuestionSet
from engine.cards.choice import parse_choice
from engine.cards.cloze import normalise_code
from engine.checking import check_expression, check_number, check_vector, parse_shape
from engine.verdict import Verdict, graded_as_offered
from tests.engine.checking.test_checking_examiner_rules import grade, set_15

__all__ = ["set_15"]  # the module's fixture of the bank, shared with the rules of corpora 4 to 7


@pytest.mark.parametrize(
    ("item_id", "offered", "correct"),
    [
        ("var-dot", "sqrt(d_k) or d_k", False),  # one of the two is wrong
        ("var-dot", "d or dk", True),  # two spellings of the one right answer
        ("head-size-from-model", "16 or 64", False),
        ("shape-grad-q", "(T_q, d_k) or (d_k, T_q)", False),
        ("cloze-five-lines-max-axis", "1 or -1", True),
        ("softmax-uniform", "0.25 or 1/3", False),
    ],
)
def test_two_answers_offered_at_once_are_right_only_when_both_are(
    set_15: QuestionSet, item_id: str, offered: str, correct: bool
) -> None:
    verdict = grade(set_15, item_id, offered)
    assert verdict.valid
    assert verdict.correct is correct


@pytest.mark.parametrize(
    ("typed", "graded", "correct"),
    [
        ("`d_k`", ["d_k"], True),  # one answer, by what its marks hold
        ("**d_k or d_k**", ["d_k", "d_k"], True),  # the marks around both, then each
        ("`d_k` or **d**", ["d_k", "d"], False),  # each answer in its own marks
    ],
)
def test_each_answer_offered_is_graded_once_by_what_its_marks_hold(
    typed: str, graded: list[str], correct: bool
) -> None:
    seen: list[str] = []

    def grade_one(answer: str) -> Verdict:
        seen.append(answer)
        return Verdict(answer == "d_k", score=float(answer == "d_k"))

    verdict = graded_as_offered(typed, grade_one)
    assert seen == graded
    assert (verdict.correct, verdict.valid) == (correct, True)
    if not correct:  # the answer named without its marks
        assert verdict.feedback == "give one answer: `d` is not right"


def test_or_so_is_a_hedge_and_an_or_inside_brackets_is_a_remark(set_15: QuestionSet) -> None:
    assert grade(set_15, "fp64-exp-limit", "709.8 or so").correct
    assert grade(set_15, "mean-dot", "0 (mean of each term, or of the sum)").correct


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("sqtr(d_k)", "sqrt(d_k)"), ("sofmax(x)", "softmax(x)"), ("sigmod(x)", "sigmoid(x)")],
)
def test_a_function_name_one_slip_from_one_known_function_is_that_function(
    typed: str, meant: str
) -> None:
    assert check_expression(typed, meant, positive=["d_k"]).correct


@pytest.mark.parametrize("typed", ["sinc(x)", "logg(x)", "sqr(x)", "expp(x)"])
def test_a_name_near_two_functions_or_too_short_to_tell_is_not_guessed(typed: str) -> None:
    assert not check_expression(typed, "sin(x)").valid


def test_an_exponent_of_one_over_n_without_brackets_is_the_root() -> None:
    assert check_expression("d_k^1/2", "sqrt(d_k)", positive=["d_k"]).correct
    assert check_expression("x**1/3", "cbrt(x)", positive=["x"]).correct
    # Only a literal 1 over a whole number: `x^2/2` is still half of x squared.
    assert check_expression("x^2/2", "x**2/2").correct
    assert not check_expression("x^1/2", "x/2").correct


def test_the_axis_of_a_softmax_may_be_its_second_argument() -> None:
    expected = "softmax(Q K^T / sqrt(d_k)) V"
    kwargs = {"positive": ["d_k"], "noncommutative": ["Q", "K", "V"]}
    assert check_expression("F.softmax(Q @ K.T / d_k**0.5, -1) @ V", expected, **kwargs).correct
    assert not check_expression("F.softmax(Q @ K.T / d_k**0.5, 0) @ V", expected, **kwargs).correct
    assert check_expression("softmax(Q K^T / sqrt(d_k), 1) V", expected, **kwargs).correct


@pytest.mark.parametrize(
    ("answer", "expected", "correct"),
    [
        ("2,048", 2048.0, True),
        ("1,048,576 bytes", 1.0, True),  # in MiB
        ("22,6", 22.6, True),  # a decimal comma is not a thousands separator
        ("0,245", 0.245, True),  # no grouping of thousands starts with 0: a decimal comma
        ("0, 245", 0.245, False),  # a list of two numbers is not one number
    ],
)
def test_digits_grouped_in_thousands_by_commas_are_one_number(
    answer: str, expected: float, correct: bool
) -> None:
    unit = "MiB" if "bytes" in answer else None
    verdict = check_number(answer, expected, abs_tol=0.01, unit=unit)
    assert verdict.valid and verdict.correct is correct


def test_a_count_without_the_unit_s_prefix_is_wrong_and_told_so() -> None:
    verdict = check_number("4194304", 4.194304, rel_tol=0.05, unit="million")
    assert verdict.valid and not verdict.correct
    assert "million" in verdict.feedback


@pytest.mark.parametrize("nan", ["nan", "NaN", "np.nan", "float('nan')"])
def test_nan_is_a_readable_claim_and_never_a_number(nan: str) -> None:
    verdict = check_number(nan, 0.0, abs_tol=1e-9)
    assert verdict.valid and not verdict.correct


def test_two_numbers_side_by_side_in_a_shape_are_two_dimensions() -> None:
    assert parse_shape("(5 32)") == ("5", "32")
    assert parse_shape("(2 d_k)") == ("2*d_k",)  # a number next to a name is a product


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("1, whatever the head size is", True),
        ("2, like a sigmoid's peak", False),
    ],
)
def test_a_remark_in_words_after_a_comma_is_no_part_of_the_answer(
    answer: str, correct: bool
) -> None:
    verdict = check_number(answer, 1.0, abs_tol=1e-9)
    assert verdict.valid and verdict.correct is correct


def test_a_list_with_a_word_in_it_is_still_a_list() -> None:
    assert parse_shape("(B, heads)", aliases={"h": ["heads"]}) == ("B", "h")


def test_a_label_before_a_list_and_the_identity_by_name() -> None:
    assert check_vector("weights: [0.5, 0.5]", [0.5, 0.5], abs_tol=0.01).correct
    assert check_vector("[[1, 0], [0, 1]] = I", [[1, 0], [0, 1]], abs_tol=0.01).correct
    assert not check_vector("[[1, 0], [0, 1]] = I", [[1, 0], [1, 1]], abs_tol=0.01).correct


def test_an_option_named_with_the_word_option() -> None:
    assert parse_choice("option 3", 4) == 2
    assert parse_choice("choice: d", 4) == 3
    assert parse_choice("option 5", 4) is None


def test_a_unicode_subscript_in_a_blank_is_the_same_subscript() -> None:
    assert normalise_code("Vⱼ") == normalise_code("V_j") == normalise_code("V_{j}")
    assert normalise_code("sₖ") == "s_k"


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("sum(exp(s_k - m))", True),  # the one index its term carries
        ("np.sum(np.exp(s - m))", True),  # NumPy's sum over the vector of scores
        ("sum(exp(s_i - m) for i in range(n))", True),  # Python's
        ("sum(exp(s_k - m), k)", True),  # the index named, whatever its letter
        ("sum_k exp(s_k) e^-m", True),  # a sign after `^` belongs to the exponent
        ("np.sum(np.exp(s)) - m", False),
        ("sum(exp(s_j - s_i))", False),  # two indices: which one the sum runs over is unsaid
    ],
)
def test_a_sum_written_without_its_index_runs_over_the_one_its_term_carries(
    set_15: QuestionSet, answer: str, correct: bool
) -> None:
    verdict = grade(set_15, "stable-softmax-denominator", answer)
    assert verdict.valid
    assert verdict.correct is correct


def test_where_the_leading_term_is_asked_lower_order_terms_do_not_count(
    set_15: QuestionSet,
) -> None:
    assert grade(set_15, "flops-qk", "2 d_k T^2 - T^2").correct  # the exact count
    assert not grade(set_15, "flops-qk", "2 T^2 d_k + 2 T d_k^2").correct  # same order
    assert not grade(set_15, "flops-qk", "T^2 (d_k + 1)").correct
    # Elsewhere an extra term is an error.
    assert not grade(set_15, "flops-av", "2 T^2 d_v - T^2").correct


def test_a_bracketed_equation_ending_in_infinity_is_a_remark_on_overflow() -> None:
    assert check_number("88.7 (exp(88.8) = inf)", 88.72, abs_tol=0.05).correct
    # Working that is infinity itself is still working that disagrees.
    assert not check_number("88.7 (= inf)", 88.72, abs_tol=0.05).correct


def test_an_equation_cleared_of_its_denominators_has_the_same_solutions() -> None:
    assert check_expression("1/x + 1/y = 2", "y = x/(2*x - 1)").correct
    assert check_expression("1/y = 2 - 1/x", "y = x/(2*x - 1)").correct
    # Multiplying through by a variable adds the solutions where it is 0: not the same equation.
    assert not check_expression("x*y = x", "y = 1 + 0*x").correct
    assert not check_expression("y = x/(2*x + 1)", "y = x/(2*x - 1)").correct
