"""Var(XY) = Var(X) Var(Y): exact for independent factors with mean 0, wrong otherwise.

For independent X and Y, Var(XY) = Var(X) Var(Y) + Var(X) E[Y]² + Var(Y) E[X]². The drills
declare q_a, k_a independent N(0, 1), so Σ_a Var(q_a) Var(k_a) is a true link from
Σ_a Var(q_a k_a): a free-form chain that uses it is right, a step that asks for another form
says so without calling the identity false, and where a factor's mean is not 0 (q_a², q_a + m)
or the factors share a vector the identity is refused with the general formula. In-process.
"""

import pytest

from engine.checking.derivation import Assumptions, StepVerdict, check_step

SCORES = Assumptions(normal_vectors=("q", "k"), symbols=("m",), aliases={"d_k": ("d", "dk")})
THREE = Assumptions(normal_vectors=("q", "k", "v"))
WRITTEN_OUT = "Σ_a (E[q_a^2] E[k_a^2] - E[q_a]^2 E[k_a]^2)"
TRUE_BUT_NOT_ASKED = "holds here only because the factors are independent and both have mean 0"


def step(previous: str, line: str, expected: str | None, on: Assumptions = SCORES) -> StepVerdict:
    return check_step(previous, line, expected=expected, assumptions=on)


@pytest.mark.parametrize(
    ("previous", "line", "expected", "on"),
    [
        ("Var(q·k)", "Σ_a Var(q_a) Var(k_a) = d_k", "d_k", SCORES),
        ("Var(q·k)", "Σ_a Var(q_a k_a) = Σ_a Var(q_a) Var(k_a) = d_k", "d_k", SCORES),
        ("Var(q·k)", "Σ_a (E[q_a^2] - E[q_a]^2)(E[k_a^2] - E[k_a]^2) = d_k", "d_k", SCORES),
        ("Var(q·k/√d_k)", "Σ_a Var(q_a) Var(k_a)/d_k = 1", "1", SCORES),
        ("Σ_a Var(q_a k_a v_a)", "Σ_a Var(q_a) Var(k_a) Var(v_a)", None, THREE),
    ],
)
def test_the_product_of_variances_of_independent_zero_mean_factors_is_a_true_link(
    previous: str, line: str, expected: str | None, on: Assumptions
) -> None:
    verdict = step(previous, line, expected, on)
    assert verdict.correct, verdict.message
    assert "not in general" in verdict.message  # the note says why it holds here


@pytest.mark.parametrize(
    ("previous", "line", "expected", "asks_for"),
    [
        ("Σ_a Var(q_a k_a)", "Σ_a Var(q_a) Var(k_a)", WRITTEN_OUT, "E[X²] − E[X]² form"),
        (
            "Σ_a Var(q_a k_a)",
            "Σ_a (E[q_a^2] - E[q_a]^2)(E[k_a^2] - E[k_a]^2)",
            WRITTEN_OUT,
            "E[X²] − E[X]² form",
        ),
        ("Var(q·k)/d_k", "Σ_a Var(q_a) Var(k_a)/d_k", "Σ_a Var(q_a k_a)/d_k", "as it stands"),
    ],
)
def test_a_step_asking_for_another_form_is_told_the_identity_holds_here(
    previous: str, line: str, expected: str, asks_for: str
) -> None:
    verdict = step(previous, line, expected)
    assert verdict.valid and not verdict.correct
    assert TRUE_BUT_NOT_ASKED in verdict.message
    assert asks_for in verdict.message
    assert "is not Var(X) Var(Y)" not in verdict.message


@pytest.mark.parametrize(
    ("previous", "line", "why"),
    [
        # a factor whose mean is not 0: E[q_a²] = 1, E[q_a + m] = m
        ("Σ_a Var(q_a^2 k_a)", "Σ_a Var(q_a^2) Var(k_a)", "Var(X) E[Y]² + Var(Y) E[X]²"),
        ("Var((q_1 + m) k_1)", "Var(q_1 + m) Var(k_1)", "Var(X) E[Y]² + Var(Y) E[X]²"),
        # factors that are not independent
        ("Var(q_1 q_1)", "Var(q_1) Var(q_1)", "1/2 times the right one"),
        ("Var((q·k) (q·q))", "Var(q·k) Var(q·q)", "only for independent factors"),
        # variances of factors added
        ("Σ_a Var(q_a k_a)", "Σ_a (Var(q_a) + Var(k_a))", "is not Var(X) + Var(Y)"),
    ],
)
def test_where_the_identity_does_not_hold_it_is_refused_with_the_general_formula(
    previous: str, line: str, why: str
) -> None:
    verdict = step(previous, line, None)
    assert not verdict.valid and not verdict.correct
    assert why in verdict.message, verdict.message
    assert TRUE_BUT_NOT_ASKED not in verdict.message
