"""The standard notations that equivalence suites such as STACK's, PrairieLearn's and the MITx
grading library's take for granted, one rule at a time."""

from __future__ import annotations

import math

import pytest

from engine.checking import check_expression


def verdict_of(answer: str, expected: str, **declared: list[str]) -> str:
    verdict = check_expression(answer, expected, **declared)  # type: ignore[arg-type]
    return "correct" if verdict.correct else "wrong" if verdict.valid else "unreadable"


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("sin^2(x)", "sin(x)^2", "correct"),
        ("sin²x", "sin(x)^2", "correct"),
        ("cos**2 (y)", "cos(y)^2", "correct"),
        ("ln^3 x", "log(x)^3", "correct"),
        ("sin^2(x)", "sin(x^2)", "wrong"),
        ("tan^-1(x)", "atan(x)", "correct"),
        ("cosh^(-1) x", "acosh(x)", "correct"),
        ("sin⁻¹(x)", "asin(x)", "correct"),
        ("sin^-1(x)", "1/sin(x)", "wrong"),  # the inverse function, not the reciprocal
        ("(sin x)^-1", "1/sin(x)", "correct"),
    ],
)
def test_a_power_between_a_function_and_its_argument(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("sin x", "sin(x)", "correct"),
        ("ln 2x", "log(2*x)", "correct"),
        ("sin x^2", "sin(x^2)", "correct"),
        ("sin x cos x", "sin(x)*cos(x)", "correct"),
        ("2 sin x / cos x", "2*tan(x)", "correct"),
        ("exp -x", "exp(-x)", "unreadable"),  # a sign starts no argument: type the bracket
        ("sin x + 1", "sin(x + 1)", "wrong"),  # the argument ends at the operator
        ("sin", "sin(x)", "unreadable"),
    ],
)
def test_a_function_applied_without_brackets_takes_the_operand_that_follows(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("n!", "factorial(n)", "correct"),
        ("(n+1)!", "(n+1)*factorial(n)", "correct"),
        ("n!/(n-1)!", "n", "correct"),
        ("fact(n) + 1", "n! + 1", "correct"),
        ("3! + 1", "7", "correct"),
        ("n!", "n", "unreadable"),  # a final `!` where no factorial is asked: emphasis?
        ("5!", "120", "correct"),  # a whole number's factorial, typed alone, is one
        ("5!", "5", "wrong"),
        ("5 + d!", "5 + d", "unreadable"),
        ("n!!", "factorial(n)", "unreadable"),
        ("171! + 1", "1", "unreadable"),  # past float range: refused before SymPy computes it
        ("factorial(10**6) - 1", "1", "unreadable"),
    ],
)
def test_factorials(answer: str, expected: str, verdict: str) -> None:
    assert verdict_of(answer, expected) == verdict


def test_factorials_are_judged_at_real_points_through_the_gamma_function() -> None:
    assert verdict_of("n*(n-1)!", "factorial(n)") == "correct"
    assert verdict_of("n*(n+1)!", "factorial(n)") == "wrong"


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("log_2(8)", "3", "correct"),
        ("log_{10}(x)", "log10(x)", "correct"),
        ("log_b(x)", "log(x)/log(b)", "correct"),
        ("log_2 x", "log(x, 2)", "correct"),
        ("log_2(x)", "log(x, 10)", "wrong"),
    ],
)
def test_a_subscript_on_log_is_its_base(answer: str, expected: str, verdict: str) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("1/cosh(x)", "sech(x)"),
        ("1/sinh(x)", "csch(x)"),
        ("cosh(x)/sinh(x)", "coth(x)"),
        ("arccot(x)", "acot(x)"),
        ("acos(1/x)", "asec(x)"),
        ("arccsc(x)", "acsc(x)"),
        ("1/sin(x)", "cosec(x)"),
        ("sgn(x) |x|", "x"),
        ("sign(-2)", "-1"),
        ("atanh(1/x)", "arccoth(x)"),
    ],
)
def test_reciprocal_and_inverse_functions_and_their_other_names(answer: str, expected: str) -> None:
    assert verdict_of(answer, expected) == "correct"


def test_i_is_the_imaginary_unit_unless_the_question_declares_it() -> None:
    assert verdict_of("i^2", "-1") == "correct"
    assert verdict_of("e^(i pi)", "-1") == "correct"
    assert verdict_of("sqrt(-4)", "2i") == "correct"
    assert verdict_of("(1+i)(1-i)", "2") == "correct"
    # A position or an index: a symbol like any other.
    assert verdict_of("i^2", "-1", integer=["i"]) == "wrong"
    assert verdict_of("i", "i", integer=["i"]) == "correct"
    assert verdict_of("i - 1", "i", integer=["i"]) == "wrong"


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("pi/2", "%pi/2", "correct"),
        ("exp(x)", "%e^x", "correct"),
        ("sqrt(-1)", "%i", "correct"),
        ("25%", "1/4", "correct"),
        ("2.5% x", "x/40", "correct"),
        ("25%", "25", "wrong"),
        ("infinity", "inf", "correct"),
        ("-infty", "-inf", "correct"),
        ("∞", "-inf", "wrong"),
        ("lambda x", "λ*x", "correct"),
        ("λ²", "lambda^2", "correct"),
    ],
)
def test_spellings_of_constants_and_letters(answer: str, expected: str, verdict: str) -> None:
    assert verdict_of(answer, expected) == verdict


def test_a_capital_e_that_the_author_never_calls_is_a_symbol() -> None:
    assert verdict_of("E ε_0", "epsilon_0*E") == "correct"
    assert verdict_of("2 E", "epsilon_0*E") == "wrong"
    # Called, it is still the expectation: E(x) is not E·x.
    assert verdict_of("E(x)", "E(x)") == "correct"


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [("1/0", "divides by zero"), ("x/(1-1)", "divides by zero"), ("x # + 1", "`#`")],
)
def test_what_has_no_value_or_hides_text_is_not_graded(answer: str, fragment: str) -> None:
    verdict = check_expression(answer, "x")
    assert not verdict.valid and fragment in verdict.feedback


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("1 - -1", "2", "correct"),
        ("1+-1", "0", "correct"),
        ("2^-2", "1/4", "correct"),
        ("+-1", "-1", "correct"),
        ("-(-3)", "3", "correct"),
        ("1++2", "3", "unreadable"),
        ("1-+2", "-1", "unreadable"),
        ("--2", "2", "unreadable"),
        ("1---1", "0", "unreadable"),
        ("2^--2", "4", "unreadable"),
    ],
)
def test_signs_in_a_row_are_a_slip_except_a_negative_term(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("lg(1000)", "3", "correct"),
        ("lg(27, 3)", "3", "correct"),
        ("lg x", "log10(x)", "correct"),
        ("signum(-3)", "-1", "correct"),
        ("arctan2(1, -1)", "3*pi/4", "correct"),
        ("atan2(y, x)", "atan2(x, y)", "wrong"),
    ],
)
def test_two_argument_logarithms_and_angles(answer: str, expected: str, verdict: str) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("sinx", "sin(x)", "correct"),
        ("2sinxcosx", "sin(2*x)", "correct"),
        ("lnx^2", "2*log(x)", "correct"),
        ("pir^2", "pi*r^2", "correct"),
        ("2pir", "2*pi*r", "correct"),
        ("sinz", "sin(x)", "unreadable"),  # z is no symbol of the question
        ("∛x", "x^(1/3)", "correct"),
        ("∜(x+1)", "(x+1)^(1/4)", "correct"),
        ("root(x, 5)", "x^(1/5)", "correct"),
        ("abs x", "abs(x)", "correct"),
        ("ϕ + ϵ", "phi + epsilon", "correct"),
    ],
)
def test_run_together_functions_roots_and_letter_variants(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("y = 1 + 2x", "y = 2*x + 1", "correct"),
        ("2x - y = -1", "y = 2*x + 1", "correct"),  # the same line, rearranged
        ("4x + 2 = 2y", "y = 2*x + 1", "correct"),  # a nonzero multiple of both sides
        ("y = 2x - 1", "y = 2*x + 1", "wrong"),
        ("2x + 1", "y = 2*x + 1", "wrong"),  # an expression does not answer for an equation
        ("(x-2)(x+2) = 0", "x^2 = 4", "correct"),
        ("x = 2", "x^2 = 4", "wrong"),  # a root is lost
        ("1/0 = y", "y = 2*x + 1", "unreadable"),
        ("y = ", "y = 2*x + 1", "unreadable"),
    ],
)
def test_an_expected_equation_is_answered_by_an_equivalent_equation(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


def test_a_mistake_listed_for_an_equation_is_named() -> None:
    mistakes = [("y = 2x - 1", "check the sign of the intercept")]
    verdict = check_expression("y - 2x = -1", "y = 2x + 1", mistakes=mistakes)
    assert not verdict.correct and verdict.feedback == "check the sign of the intercept"


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("re(3 + 4i)", "3", "correct"),
        ("im(3 + 4i)", "4", "correct"),
        ("conj(3 + 4i)", "3 - 4i", "correct"),
        ("conjugate(2i)", "2i", "wrong"),
        ("abs(3 + 4i)", "5", "correct"),
    ],
)
def test_parts_of_complex_numbers(answer: str, expected: str, verdict: str) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("sin(x)^2 + cos(x)^2", "1", "correct"),  # right whatever x is
        ("x^0", "1", "correct"),
        ("y - y + d", "d", "correct"),
        ("x^2", "1", "unreadable"),  # not right for every x: the learner is told the names
        ("d_q", "d_k", "unreadable"),
    ],
)
def test_names_the_question_does_not_use_are_fine_when_they_cancel(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("a+b", "correct"),
        ("a+b.", "correct"),
        ("a+b, since addition commutes", "correct"),  # the comma leads to the reason
        ("a+b,", "unreadable"),
        ("a+b ,  ", "unreadable"),
    ],
)
def test_a_full_stop_ends_an_answer_but_a_trailing_comma_leaves_it_incomplete(
    answer: str, verdict: str
) -> None:
    assert verdict_of(answer, "a+b") == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("ln|x|", "ln(abs(x))", "correct"),
        ("log |x - 1|", "ln(abs(1 - x))", "correct"),
        ("ln sqrt(x)", "ln(x)/2", "correct"),
        ("sin abs(x)", "sin(abs(x))", "correct"),
        ("sin exp(x) + 1", "sin(exp(x)) + 1", "correct"),
        ("sin sqrt(x)^2", "sin(x)", "correct"),  # a power goes with the operand, as in sin x^2
        ("ln sqrt(x) + 1", "ln(x)/2", "wrong"),
        ("ln sqrt(x", "ln(x)/2", "unreadable"),
    ],
)
def test_a_function_applied_without_brackets_to_another_function_call(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("answer", "expected", "verdict"),
    [
        ("4 - 2x = 0", "x = 2", "correct"),  # a constant multiple, -2, of x - 2
        ("x(x - 2) = 0", "x = 2", "wrong"),  # a multiple by x, which adds the root 0
        ("(x - 2)^2 = 0", "x = 2", "wrong"),
        ("y/2 = x + 1/2", "y = 2x + 1", "correct"),
        ("y = 2x - 1", "y = 2x + 1", "wrong"),
    ],
)
def test_an_equation_holds_the_same_when_its_sides_differ_by_a_constant_factor_only(
    answer: str, expected: str, verdict: str
) -> None:
    assert verdict_of(answer, expected) == verdict


@pytest.mark.parametrize(
    ("typed", "holds"),
    [
        ("4.5e-5", True),  # 4.5396e-5 to the one decimal of its mantissa
        ("4.54e-5", True),
        ("4.6e-5", False),
        ("4.4e-5", False),
        ("4.5396e-5", True),
        ("4.53e-5", False),
    ],
)
def test_a_rounded_value_in_scientific_notation_holds_to_the_digits_of_its_mantissa(
    typed: str, holds: bool
) -> None:
    from engine.checking.equivalence.expression import agrees_at_shown_digits

    exact = 1 / (2 + math.exp(10))
    assert agrees_at_shown_digits(exact, float(typed), typed, rounded=True) is holds
