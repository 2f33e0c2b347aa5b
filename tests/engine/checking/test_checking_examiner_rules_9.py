"""Rules a fair examiner follows that the held-out corpus 9 (learners' habits) showed missing.

Each test states one rule with answers of its own, not rows of the corpus, and the cases the
rule must leave alone.
"""

from __future__ import annotations

import pytest

from engine.bank.model import QuestionSet
from engine.checking import check_expression, check_number, check_shape, check_vector
from tests.engine.checking.test_checking_examiner_rules import grade, set_15

__all__ = ["set_15"]  # the module's fixture of the bank, shared with the rules of corpora 4 to 8

ATTENTION = "softmax(Q K^T / sqrt(d_k)) V"
MATRICES = {"positive": ["d_k"], "noncommutative": ["Q", "K", "V"]}


@pytest.mark.parametrize(
    ("answer", "expected", "correct"),
    [
        ("0,125", 0.125, True),  # a decimal comma
        ("0{,}125", 0.125, True),  # as LaTeX writes one
        ("3,5 s", 3.5, True),  # with a unit
        ("1,2e-3", 0.0012, True),
        ("1,000", 1000.0, True),  # three digits after a comma group thousands
        ("0, 125", 0.125, False),  # two numbers
    ],
)
def test_a_number_may_be_written_with_a_decimal_comma(
    answer: str, expected: float, correct: bool
) -> None:
    unit = "s" if answer.endswith(" s") else None
    verdict = check_number(answer, expected, rel_tol=1e-6, unit=unit)
    assert verdict.valid and verdict.correct is correct


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("[0,5; 0,25; 0,25]", [0.5, 0.25, 0.25]),  # semicolons between decimal-comma entries
        ("[0,5, 0,25, 0,25]", [0.5, 0.25, 0.25]),  # a comma and a space between them
        ("[2; 3]", [2, 3]),  # semicolons between entries, not a column
        ("0,5; 0,25; 0,25", [0.5, 0.25, 0.25]),  # without brackets: a list, not statements
        ("[1,0;0,1]", [[1, 0], [0, 1]]),  # MATLAB's rows: the reading that fits stays
        ("[[1, 2]; [3, 4]]", [[1, 2], [3, 4]]),  # rows keeping their brackets
        (r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}", [[1, 2], [3, 4]]),
        (r"\left(0{,}5;\ 0{,}25;\ 0{,}25\right)", [0.5, 0.25, 0.25]),  # LaTeX's layout
        ("np.full((2, 2), 0.5)", [[0.5, 0.5], [0.5, 0.5]]),
        ("np.array([2, 4]) / 4", [0.5, 1.0]),
    ],
)
def test_lists_in_other_notations_are_read(answer: str, expected: list[object]) -> None:
    assert check_vector(answer, expected, abs_tol=1e-9).correct


def test_a_list_reading_never_widens_a_wrong_answer() -> None:
    assert not check_vector("[0,5; 0,5]", [0.25, 0.75], abs_tol=0.01).correct
    wrong = check_vector("[nan, 1]", [0.5, 0.5], abs_tol=0.01)
    assert wrong.valid and not wrong.correct and "NaN" in wrong.feedback


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("$\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V$", True),  # LaTeX's maths delimiters
        ("softmax(Q K^T / sqrt(d₍k₎)) V", True),  # a Unicode subscript in its brackets
        ("it is softmax(Q K^T / sqrt(d_k)) V", True),  # said as a sentence
        ("softmax(Q K^T / sqrt(d_k)) V  # over the rows", True),  # a comment is a remark
        ("softmax of Q K^T over sqrt(d_k), multiplied with V", True),  # said in words
        ("softmax(Q @ K.T / np.sqrt(d_k)) * V", False),  # * beside @: entry by entry
        ("softmax(Q*K^T/sqrt(d_k))*V", True),  # * without @ is a product
    ],
)
def test_habits_of_notation_are_read_as_meant(answer: str, correct: bool) -> None:
    verdict = check_expression(answer, ATTENTION, **MATRICES)  # type: ignore[arg-type]
    assert verdict.valid and verdict.correct is correct


def test_a_dropped_underscore_is_dropped_everywhere(set_15: QuestionSet) -> None:
    assert grade(set_15, "softmax-offdiagonal", "-pi pj").correct
    assert not check_expression("2π", "2 p_i").correct  # π alone stays π


def test_the_iverson_bracket_and_an_entry_of_a_vector(set_15: QuestionSet) -> None:
    assert grade(set_15, "cloze-softmax-gradient", "[i = j] - p_j").correct
    assert grade(set_15, "cloze-softmax-definition", "np.exp(s)[i]").correct
    assert not grade(set_15, "cloze-softmax-definition", "np.exp(s)[j]").correct


def test_the_maximum_the_question_names_may_be_written_out(set_15: QuestionSet) -> None:
    assert grade(set_15, "stable-softmax-denominator", "sum_k exp(s_k - max_j s_j)").correct
    assert grade(set_15, "stable-softmax-denominator", "np.exp(s - max(s)).sum()").correct
    assert not grade(set_15, "stable-softmax-denominator", "sum_k exp(s_k - min(s))").correct


def test_numbers_in_full_and_numpy_constants(set_15: QuestionSet) -> None:
    assert grade(set_15, "fp64-exp-limit", r"\ln(1.8 \cdot 10^{308})").correct
    assert grade(set_15, "fp32-exp-limit", "np.log(np.finfo(np.float32).max)").correct
    too_large = grade(set_15, "fp64-exp-limit", "10^308")
    assert too_large.valid and not too_large.correct


def test_a_bound_must_point_the_way_the_question_asks() -> None:
    question = "Above which d_k does the product become compute-bound?"
    assert check_number("d_k ≥ 40", 40, abs_tol=0.5, question=question).correct
    against = check_number("d_k ≤ 40", 40, abs_tol=0.5, question=question)
    assert against.valid and not against.correct and "other way" in against.feedback


def test_shapes_named_by_numpy_and_run_together_dimensions() -> None:
    question = "Q has shape (T_q, d_k) and V has shape (T_k, d_v)."
    assert check_shape("(Q.shape[0], V.shape[-1])", "(T_q, d_v)", question=question).correct
    assert not check_shape("(V.shape[0], V.shape[1])", "(T_q, d_v)", question=question).correct
    assert check_shape("(b, t, hd)", "(b, t, h*d)").correct
    assert check_shape("(5; 7)", "(5, 7)").correct
    dangling = check_shape("5 x", "(5, 7)")
    assert not dangling.valid and "missing" in dangling.feedback


def test_an_option_may_be_named_by_its_label_or_place(set_15: QuestionSet) -> None:
    assert grade(set_15, "code-wrong-scale", "Line 3").correct
    assert grade(set_15, "code-wrong-scale", "the 2nd one").correct
    assert not grade(set_15, "code-wrong-scale", "line 4").correct
    assert not grade(set_15, "code-wrong-axis", "line 3").valid  # no option is labelled so


def test_a_code_blank_may_do_the_next_lines_work_but_not_hide_a_difference(
    set_15: QuestionSet,
) -> None:
    normalised = "np.exp(S) / np.exp(S).sum(-1, keepdims=True)"
    assert grade(set_15, "cloze-five-lines-exp", normalised).correct
    assert not grade(set_15, "cloze-five-lines-exp", "3 * np.exp(S)").correct
    # the global maximum gives the same weights on small scores, and NaN on large ones
    assert not grade(set_15, "cloze-five-lines-max-axis", "None").correct
    assert grade(set_15, "cloze-causal-mask", r"-\infty").correct
    assert not grade(set_15, "cloze-five-lines-transpose", "np.flip(K)").correct
