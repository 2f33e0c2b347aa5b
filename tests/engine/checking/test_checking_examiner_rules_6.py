"""Rules a fair examiner follows that the held-out corpus 6 showed missing.

Each test states one rule with answers of its own, not rows of the corpus.
"""

from __future__ import annotations

import pytest

from engine.bank.model import QuestionSet
from engine.checking import check_number
from tests.engine.checking.test_checking_examiner_rules import grade, set_15

__all__ = ["set_15"]  # the module's fixture of the bank, shared with the rules of corpora 4 and 5


@pytest.mark.parametrize("answer", ["22.6 or so", "22.6 roughly"])
def test_a_hedge_after_the_number_is_not_a_conclusion(answer: str) -> None:
    assert check_number(answer, 512**0.5, abs_tol=0.05).correct
    wrong = check_number(answer.replace("22.6", "21.6"), 512**0.5, abs_tol=0.05)
    assert wrong.valid and not wrong.correct


@pytest.mark.parametrize(
    ("item_id", "answer", "names"),
    [
        ("cloze-five-lines-transpose", "K.t", ".t"),
        ("cloze-five-lines-exp", "S.exp()", ".exp"),
        ("cloze-five-lines-exp", "np.expo(S)", "np.expo"),
        ("cloze-five-lines-scale", "math.squareroot(Q.shape[-1])", "math.squareroot"),
    ],
)
def test_a_name_numpy_does_not_have_is_code_that_fails(
    set_15: QuestionSet, item_id: str, answer: str, names: str
) -> None:
    verdict = grade(set_15, item_id, answer)
    assert verdict.valid and not verdict.correct
    assert f"`{names}`" in verdict.feedback


def test_other_exponentials_and_logarithms_of_numpy_are_computed(set_15: QuestionSet) -> None:
    two = grade(set_15, "cloze-five-lines-exp", "np.exp2(S)")
    assert two.valid and not two.correct
    assert grade(set_15, "cloze-five-lines-exp", "np.exp2(S / np.log(2))").correct
    # A NumPy name outside what is computed here is still asked again, never guessed.
    assert not grade(set_15, "cloze-five-lines-exp", "np.fft.fft(S)").valid


@pytest.mark.parametrize("answer", ["1/i", "sqrt(-1)", "2 + 3i"])
def test_a_value_that_is_not_real_is_a_wrong_number_not_an_unreadable_one(answer: str) -> None:
    verdict = check_number(answer, 1.0, abs_tol=1e-3)
    assert verdict.valid and not verdict.correct
    assert "not a real number" in verdict.feedback


def test_working_may_be_the_equation_the_answer_solves() -> None:
    assert check_number("40 (d_k/4 = 10)", 40, abs_tol=0.5).correct
    assert check_number("16 (4 h = 64)", 16, abs_tol=0.5).correct
    # The number must solve it: `20 (d_k/4 = 10)` states working that 20 does not meet.
    verdict = check_number("20 (d_k/4 = 10)", 20, abs_tol=0.5)
    assert verdict.valid and not verdict.correct and "your working" in verdict.feedback


def test_a_delta_of_indices_the_question_states_unequal_is_zero(set_15: QuestionSet) -> None:
    assert grade(set_15, "softmax-offdiagonal", "p_i(δ_ij - p_j)").correct
    assert grade(set_15, "softmax-offdiagonal", "p_i delta_ij - p_i p_j").correct
    wrong = grade(set_15, "softmax-offdiagonal", "p_i(δ_ij + p_j)")
    assert wrong.valid and not wrong.correct
    # Where the question covers every i and j, δ_ij keeps its meaning.
    assert not grade(set_15, "softmax-grad", "-p_i p_j").correct
    assert grade(set_15, "softmax-grad", "p_i(δ_ij - p_j)").correct


@pytest.mark.parametrize(
    "answer", ["undefined", "it depends on the scores", "Depends.", "does not exist", "no value"]
)
def test_the_claim_that_there_is_no_value_is_a_wrong_answer(answer: str) -> None:
    verdict = check_number(answer, 1.0, abs_tol=1e-3)
    assert verdict.valid and not verdict.correct


def test_other_words_are_still_asked_again() -> None:
    assert not check_number("banana", 1.0, abs_tol=1e-3).valid
    assert not check_number("undefinedness", 1.0, abs_tol=1e-3).valid


def test_a_bracketed_equation_after_an_expression_is_a_remark(set_15: QuestionSet) -> None:
    assert grade(set_15, "jacobian-diagonal", "p_i(1 - p_i) (δ_ii = 1)").correct
    wrong = grade(set_15, "jacobian-diagonal", "p_i(1 + p_i) (δ_ii = 1)")
    assert wrong.valid and not wrong.correct
    # Without the equation the bracket is a factor, as before.
    assert not grade(set_15, "jacobian-diagonal", "p_i(1 - p_i) (1 - p_i)").correct


@pytest.mark.parametrize("answer", ["[3, 4]", "(3, 4)", "[3.00, 4.00]"])
def test_a_list_where_one_number_is_asked_is_read_and_wrong(answer: str) -> None:
    verdict = check_number(answer, 3.0, abs_tol=0.01)
    assert verdict.valid and not verdict.correct and "one number" in verdict.feedback


def test_an_equation_inside_a_factor_keeps_the_factor(set_15: QuestionSet) -> None:
    verdict = grade(set_15, "softmax-grad", "p_i (𝟙[i=j] - p_j)")
    # The indicator of i = j is the Kronecker delta, and the factor p_i stays: not a remark.
    assert verdict.correct and verdict.interpreted_as.startswith("p_i")
    dropped = grade(set_15, "softmax-grad", "𝟙[i=j] - p_j")
    assert dropped.valid and not dropped.correct
