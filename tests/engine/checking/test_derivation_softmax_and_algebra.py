"""Steps without randomness: the max trick, the softmax Jacobian, the roofline algebra."""

import pytest

from engine.checking.derivation import Assumptions, check_step
from tests.engine.checking.step_checkers import both_step_checkers  # noqa: F401  (the fixture)

# Every test runs twice: in-process, and through the checking worker as the drills do.
pytestmark = pytest.mark.usefixtures("both_step_checkers")

SOFTMAX = Assumptions(
    indices=("i", "j", "k"),
    symbols=("s_i", "m"),
    definitions={"p_i": "e^{s_i} / Σ_k e^{s_k}"},
    aliases={"p_i": ("softmax_i",)},
)
ROOFLINE = Assumptions(symbols=("T",), positive=("T",), aliases={"d_k": ("d", "dk")})
# One output entry o = Σ_t a_t v_t of attention, differentiated by one value v_j.
OUTPUT = Assumptions(
    indices=("t", "j"), symbols=("a_t", "v_t", "q", "k_t"), definitions={"o": "Σ_t a_t v_t"}
)


def test_the_max_trick_is_exact_step_by_step() -> None:
    previous = "e^{s_i} / Σ_j e^{s_j}"
    for line in [
        "= e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})",
        "= e^{s_i - m} / Σ_j e^{-m} e^{s_j}",
        "= e^{s_i - m} / Σ_j e^{s_j - m}",
    ]:
        verdict = check_step(previous, line, assumptions=SOFTMAX)
        assert verdict.correct, (line, verdict.message)
        previous = verdict.last_side


def test_the_max_trick_as_one_equation_in_latex() -> None:
    line = "\\frac{e^{s_i - m}}{\\sum_{j} e^{s_j - m}} = \\frac{e^{s_i}}{\\sum_{j=1}^{n} e^{s_j}}"
    assert check_step(None, line, assumptions=SOFTMAX).correct


def test_subtracting_the_max_only_on_top_changes_the_value() -> None:
    verdict = check_step("e^{s_i}/Σ_j e^{s_j}", "= e^{s_i - m}/Σ_j e^{s_j}", assumptions=SOFTMAX)
    assert not verdict.valid
    assert "does not follow" in verdict.message


def test_a_constant_comes_out_of_a_sum_and_a_sum_of_constants_counts_terms() -> None:
    assert check_step(None, "Σ_j e^{s_j - m} = e^{-m} Σ_j e^{s_j}", assumptions=SOFTMAX).correct
    assert check_step(None, "Σ_j e^{-m} = n e^{-m}", assumptions=SOFTMAX).correct
    assert not check_step(None, "Σ_j e^{-m} = e^{-m}", assumptions=SOFTMAX).valid


@pytest.mark.parametrize(
    "line",
    ["∂p_i/∂s_j = p_i (δ_ij − p_j)", "∂softmax_i/∂s_j = p_i δ_ij - p_i p_j",
     "\\frac{\\partial p_i}{\\partial s_j} = p_i(\\delta_{ij} - p_j)",
     "dp_i/ds_j = p_i (KroneckerDelta(i, j) - p_j)"],
)  # fmt: skip
def test_the_softmax_jacobian_is_a_known_identity(line: str) -> None:
    verdict = check_step(None, line, assumptions=SOFTMAX)
    assert verdict.correct, verdict.message


def test_the_softmax_jacobian_step_by_step_from_the_definition() -> None:
    previous = "∂p_i/∂s_j"
    for line in [
        "= (δ_ij e^{s_i} Σ_k e^{s_k} - e^{s_i} e^{s_j}) / (Σ_k e^{s_k})^2",
        "= p_i δ_ij - p_i p_j",
        "= p_i (δ_ij - p_j)",
    ]:
        verdict = check_step(previous, line, expected=None, assumptions=SOFTMAX)
        assert verdict.correct, (line, verdict.message)
        previous = verdict.last_side


def test_a_jacobian_without_the_kronecker_delta_is_wrong() -> None:
    verdict = check_step(None, "∂p_i/∂s_j = -p_i p_j", assumptions=SOFTMAX)
    assert not verdict.valid


def test_the_arithmetic_intensity_algebra() -> None:
    previous = "2 T^2 d_k / (8 T d_k + 8 T^2)"
    verdict = check_step(previous, "= 2 T^2 d / (8 T (d + T))", assumptions=ROOFLINE)
    assert verdict.correct
    verdict = check_step(
        verdict.last_side, "= T d_k / (4 (d_k + T))", expected="T d_k/(4(d_k+T))",
        assumptions=ROOFLINE,
    )  # fmt: skip
    assert verdict.correct


def test_a_slip_in_the_intensity_algebra_is_caught() -> None:
    verdict = check_step("2 T^2 d_k / (8 T d_k + 8 T^2)", "= T d_k / (8 (d_k + T))",
                         assumptions=ROOFLINE)  # fmt: skip
    assert not verdict.valid
    assert "your line gives" in verdict.message


def test_the_machine_balance_crossover_is_plain_arithmetic() -> None:
    assert check_step(None, "200e9 / 20e9 = 10", assumptions=ROOFLINE).correct
    assert check_step("4 * 10", "= 40", expected="40", assumptions=ROOFLINE).correct


def test_a_sum_nested_in_the_same_index_is_shown_in_the_learners_notation() -> None:
    verdict = check_step("e^{s_i} / Σ_j e^{s_j}", "= Σ_j Σ_j e^{s_j}", assumptions=SOFTMAX)
    assert not verdict.valid
    assert "your line gives Σ_j(Σ_j(exp(s_j)))" in verdict.message
    assert "zz" not in verdict.message + verdict.interpreted_as


@pytest.mark.parametrize(
    "line",
    ["= ∂/∂v_j Σ_t a_t v_t = a_j", "= \\frac{\\partial}{\\partial v_j} \\sum_t a_t v_t = a_j",
     "= ∂/∂v_j (Σ_t a_t v_t) = Σ_t a_t δ_tj = a_j", "= a_j"],
)  # fmt: skip
def test_the_derivative_operator_differentiates_a_sum_term_by_term(line: str) -> None:
    verdict = check_step("∂o/∂v_j", line, expected="a_j", assumptions=OUTPUT)
    assert verdict.correct, verdict.message


@pytest.mark.parametrize(
    ("line", "gives"),
    [("= ∂/∂v_j Σ_t a_t v_t = v_j", "v_j"), ("= ∂/∂v_j Σ_t a_t v_t = Σ_t a_t", "Σ_t(a_t)"),
     ("= ∂/∂v_j Σ_t a_t v_t^2", "Σ_t(2·a_t·v_t·δ_tj)")],
)  # fmt: skip
def test_a_wrong_derivative_after_the_operator_is_not_valid(line: str, gives: str) -> None:
    verdict = check_step("∂o/∂v_j", line, expected="a_j", assumptions=OUTPUT)
    assert verdict.readable and not verdict.valid
    assert f"your line gives {gives}" in verdict.message


def test_the_derivative_operator_takes_the_chain_rule_through_a_sum() -> None:
    line = "∂/∂s_j (e^{s_i}/Σ_k e^{s_k}) = p_i(δ_ij − p_j)"
    assert check_step(None, line, expected="p_i(δ_ij − p_j)", assumptions=SOFTMAX).correct
    wrong = check_step(None, "∂/∂s_j (e^{s_i}/Σ_k e^{s_k}) = p_i(1 − p_j)", assumptions=SOFTMAX)
    assert wrong.readable and not wrong.valid


def test_the_derivative_operator_by_a_plain_symbol() -> None:
    verdict = check_step(None, "∂/∂q (q k_t/√d_k) = k_t/√d_k", assumptions=OUTPUT)
    assert verdict.correct, verdict.message
    assert not check_step(None, "∂/∂q (q k_t/√d_k) = k_t", assumptions=OUTPUT).valid


@pytest.mark.parametrize(
    ("line", "says"),
    [("∂/∂v_j Σ_j a_j v_j", "the sum runs over j, the index of v_j"),
     ("∂/∂s_j p_i", "write the derivative of p_i as ∂p_i/∂x"),
     ("∂/∂s_j " * 5 + "s_j", "at most 4 derivatives"),
     ("∂/∂s_j", "write what to differentiate after ∂/∂x")],
)  # fmt: skip
def test_a_derivative_operator_that_cannot_be_taken_says_why(line: str, says: str) -> None:
    assumptions = OUTPUT if "v_j" in line else SOFTMAX
    verdict = check_step(None, line, assumptions=assumptions)
    assert not verdict.correct
    assert says in verdict.message, verdict.message
