"""Derivation steps for the mean and variance of q·k and of the scaled score q·k/√d_k.

q and k are independent vectors whose d_k components are i.i.d. N(0, 1); every line is checked
against the line before it by reducing E and Var to polynomials in d_k.
"""

import pytest

from engine.checking.derivation import Assumptions, StepVerdict, check_step
from tests.engine.checking.step_checkers import both_step_checkers  # noqa: F401  (the fixture)

# Every test runs twice: in-process, and through the checking worker as the drills do.
pytestmark = pytest.mark.usefixtures("both_step_checkers")

SCORES = Assumptions(
    normal_vectors=("q", "k"),
    aliases={"d_k": ("d", "dk", "d_{k}")},
)


def step(previous: str | None, line: str, expected: str | None = None) -> StepVerdict:
    return check_step(previous, line, expected=expected, assumptions=SCORES)


def follow(lines: list[str], targets: list[str | None]) -> list[StepVerdict]:
    """Check a derivation line by line, each against the last accepted one."""
    verdicts, previous = [], lines[0]
    for line, target in zip(lines[1:], targets, strict=True):
        verdict = step(previous, line, target)
        verdicts.append(verdict)
        previous = verdict.last_side
    return verdicts


# --- the mean ---------------------------------------------------------------------------------


def test_the_mean_of_q_dot_k_is_derived_step_by_step() -> None:
    verdicts = follow(
        ["E[q·k]", "= E[Σ_a q_a k_a]", "= Σ_a E[q_a k_a]", "= Σ_a E[q_a] E[k_a]", "= 0"],
        ["E[Σ_a q_a k_a]", "Σ_a E[q_a k_a]", "Σ_a E[q_a] E[k_a]", "0"],
    )
    assert all(v.correct for v in verdicts), [v.message for v in verdicts]


def test_factorising_the_expectation_cites_independence() -> None:
    verdict = step("Σ_a E[q_a k_a]", "= Σ_a E[q_a] E[k_a]")
    assert verdict.correct
    assert "independence" in verdict.rules
    assert "needs independence, which holds here" in verdict.message


def test_a_whole_chain_on_one_line_is_accepted() -> None:
    verdict = step(None, "E[q·k] = Σ_a E[q_a] E[k_a] = 0", expected="0")
    assert verdict.correct
    assert verdict.interpreted_as == "E(q·k) = Σ_a(E(k_a)·E(q_a)) = 0"


@pytest.mark.parametrize(
    "line",
    ["E[q·k] = 0", "E[q.k] = 0", "E(dot(q, k)) = 0", "E[qᵀk] = 0", "E[q^T k] = 0",
     "\\mathbb{E}[q \\cdot k] = 0", "𝔼[⟨q, k⟩] = 0", "E[\\sum_{a=1}^{d_k} q_a k_a] = 0",
     "E[sum_a q_a*k_a] = 0", "E[∑ₐ qₐkₐ] = 0"],
)  # fmt: skip
def test_every_spelling_of_the_dot_product_and_of_sums_is_read(line: str) -> None:
    assert step(None, line).correct


def test_forgetting_that_each_component_has_mean_zero_is_explained() -> None:
    verdict = step("Σ_a E[q_a] E[k_a]", "= d_k", expected="0")
    assert verdict.readable and not verdict.valid
    assert "is 0, your line gives d_k" in verdict.message
    assert "E[q_a] E[k_a] = 0 · 0 = 0" in verdict.message


def test_the_same_slip_inside_one_line_names_the_broken_equals_sign() -> None:
    verdict = step(None, "E[q·k] = Σ_a E[q_a] E[k_a] = d_k")
    assert not verdict.valid
    (broken,) = verdict.broken
    assert (broken.left, broken.right) == ("Σ_a(E(k_a)·E(q_a))", "d_k")
    assert (broken.left_value, broken.right_value) == ("0", "d_k")


# --- the variance -----------------------------------------------------------------------------


def test_the_variance_of_q_dot_k_is_derived_step_by_step() -> None:
    verdicts = follow(
        ["Var(q·k)", "= Σ_a Var(q_a k_a)", "= Σ_a E[q_a² k_a²] - E[q_a k_a]²",
         "= Σ_a E[q_a²] E[k_a²]", "= Σ_a 1", "= d_k"],
        ["Σ_a Var(q_a k_a)", None, "Σ_a E[q_a²] E[k_a²]", "Σ_a 1", "d_k"],
    )  # fmt: skip
    assert all(v.correct for v in verdicts), [v.message for v in verdicts]


def test_the_variance_through_its_definition_is_accepted() -> None:
    verdict = step(None, "Var(q.k) = E[(q.k)^2] - E[q.k]^2 = d_k", expected="d_k")
    assert verdict.correct
    assert "Var(X) = E[X²] − E[X]²" in verdict.message


def test_a_step_may_be_skipped_when_it_still_follows() -> None:
    assert step("Var(q·k)", "Var(q·k) = d_k", expected="Σ_a Var(q_a k_a)").correct
    assert step("Var(q·k)", "= d_k", expected="d_k").correct


def test_d_k_squared_is_rejected_with_the_rule_that_variances_add() -> None:
    verdict = step("Var(q·k)", "= d_k^2", expected="d_k")
    assert not verdict.valid and not verdict.reaches_expected
    assert "Var(q·k) is d_k, your line gives d_k^2" in verdict.message
    assert "variances add" in verdict.message


def test_the_standard_deviation_is_not_the_variance() -> None:
    verdict = step("Var(q·k)", "= √d_k", expected="d_k")
    assert not verdict.valid
    assert "standard deviation" in verdict.message


def test_an_unfinished_but_correct_line_is_valid_yet_not_the_closed_form() -> None:
    verdict = step("Var(q·k)", "= Σ_a E[q_a²] E[k_a²]", expected="d_k")
    assert verdict.valid and not verdict.reaches_expected
    assert "closed form" in verdict.message


def test_repeating_the_previous_line_makes_no_progress() -> None:
    verdict = step("Var(q·k)", "= Var(q·k)", expected="Σ_a Var(q_a k_a)")
    assert verdict.valid and not verdict.correct
    assert "the line you started from" in verdict.message


def test_repeating_the_previous_line_with_another_index_letter_makes_no_progress() -> None:
    verdict = step("Σ_a E[q_a k_a]", r"= \sum_{i=1}^{d_k} E[q_i k_i]", expected="Σ_a E[q_a] E[k_a]")
    assert verdict.valid and not verdict.correct
    assert "the line you started from" in verdict.message


def test_a_random_quantity_is_not_a_number() -> None:
    verdict = step(None, "q·k = 0")
    assert not verdict.valid
    assert "random quantity" in verdict.message


# --- the scaled score -------------------------------------------------------------------------


def test_the_variance_of_the_scaled_score_is_derived_step_by_step() -> None:
    verdicts = follow(
        ["Var(q·k/√d_k)", "= Var(q·k)/d_k", "= d_k/d_k", "= 1"],
        ["Var(q·k)/d_k", None, "1"],
    )
    assert all(v.correct for v in verdicts), [v.message for v in verdicts]
    assert "Var(cX) = c² Var(X)" in verdicts[0].rules


def test_taking_the_root_out_of_a_variance_unsquared_is_explained() -> None:
    verdict = step("Var(q·k/√d_k)", "= Var(q·k)/√d_k", expected="Var(q·k)/d_k")
    assert not verdict.valid
    assert "Var(q·k/√d_k) is 1, your line gives √d_k" in verdict.message
    assert "comes out of a variance squared" in verdict.message


def test_dropping_the_scale_is_explained() -> None:
    verdict = step("Var(q·k/√d_k)", "= Var(q·k) = d_k", expected="1")
    assert not verdict.valid
    assert "dropped" in verdict.message


def test_the_mean_of_the_scaled_score_is_still_zero() -> None:
    assert step("E[q·k/√d_k]", "= E[q·k]/√d_k = 0", expected="0").correct


def test_author_mistakes_take_precedence_over_the_generic_hint() -> None:
    verdict = check_step(
        "Var(q·k)", "= 1", expected="d_k", assumptions=SCORES,
        mistakes=[("1", "1 is the variance of one product q_a k_a; q·k adds up d_k of them")],
    )  # fmt: skip
    assert "adds up d_k of them" in verdict.message


def test_a_named_quantity_alone_is_checked_against_its_expected_value() -> None:
    assert step(None, "d", expected="Var(q·k)").correct
    wrong = step(None, "d^2", expected="Var(q·k)")
    assert not wrong.correct and "variances add" in wrong.message


def test_fourth_moments_are_exact() -> None:
    assert step(None, "E[q_a^4] = 3").correct
    assert step(None, "E[(q·q)^2] = d_k^2 + 2 d_k").correct
