"""A step is judged by the rules it uses, and a wrong one is told which rule it broke.

The N(0, 1) assumption makes many different quantities the same number (E[q_a k_a] and
E[q_a k_a]² are both 0); these steps must still be refused, with the rule named, while a line
that puts the assumption in openly (Σ_a 0·0 = 0) is a valid step.
"""

import pytest

from engine.checking.derivation import Assumptions, StepVerdict, check_step
from tests.engine.checking.step_checkers import both_step_checkers  # noqa: F401  (the fixture)

pytestmark = pytest.mark.usefixtures("both_step_checkers")

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk", "d_{k}")})
SOFTMAX = Assumptions(
    indices=("i", "j", "k"),
    symbols=("s_i",),
    definitions={"p_i": "e^{s_i} / Σ_k e^{s_k}"},
)


def step(previous: str, line: str, expected: str | None = None) -> StepVerdict:
    return check_step(previous, line, expected=expected, assumptions=SCORES)


@pytest.mark.parametrize(
    ("previous", "line", "rule"),
    [
        ("Σ_a E[q_a k_a]", "Σ_a E[q_a k_a]^2", "squaring is not a valid step"),
        ("E[q·k]", "E[q·k]^2", "E[q·k]² is not E[q·k]"),
        ("Σ_a E[q_a k_a]", "Σ_a (E[q_a] + E[k_a])", "product of the means"),
        ("Σ_a E[q_a k_a]", "Σ_a E[q_a] k_a", "only constants come out of E"),
        ("Σ_a Var(q_a k_a)", "Σ_a (E[q_a²]E[k_a²] + E[q_a]²E[k_a]²)", "sign of E[X]²"),
        ("Σ_a Var(q_a k_a)", "Σ_a (E[q_a]²E[k_a]² - E[q_a²]E[k_a²])", "not E[X]² − E[X²]"),
        ("Σ_a Var(q_a k_a)", "Σ_a (E[q_a²]E[k_a²] - E[q_a²]E[k_a]²)", "E[X²] ≠ E[X]²"),
        ("Σ_a Var(q_a k_a)", "Σ_a (Var(q_a) + Var(k_a))", "is not Var(X) + Var(Y)"),
        ("Σ_a Var(q_a^2 k_a)", "Σ_a Var(q_a^2) Var(k_a)", "only for independent factors"),
        ("Var(q·k)/d_k", "Σ_a Var(k_a)/d_k", "only because the components are N(0, 1)"),
    ],
)
def test_a_step_that_only_agrees_in_value_is_refused_with_the_rule_named(
    previous: str, line: str, rule: str
) -> None:
    verdict = step(previous, line)
    assert not verdict.valid and not verdict.correct
    assert rule in verdict.message


@pytest.mark.parametrize(
    ("previous", "line", "expected"),
    [
        ("Σ_a E[q_a] E[k_a]", "Σ_a 0·0 = 0", "0"),
        ("Σ_a E[q_a k_a]", "Σ_a E[q_a] E[k_a] = Σ_a 0 · 0 = 0", "Σ_a E[q_a] E[k_a]"),
        (
            "Σ_a (E[q_a²]E[k_a²] - E[q_a]²E[k_a]²)",
            r"\sum_{i=1}^{d_k} (1 \cdot 1 - 0^2) = d_k",
            "d_k",
        ),
        ("Var(q·k)", "d_k Var(q_1 k_1)", "Σ_a Var(q_a k_a)"),
        ("E[q·k]", "sum_j E[q_j k_j]", "Σ_a E[q_a k_a]"),
    ],
)
def test_a_line_that_puts_the_assumption_in_openly_or_renames_the_index_is_right(
    previous: str, line: str, expected: str
) -> None:
    verdict = step(previous, line, expected)
    assert verdict.correct, verdict.message


def test_a_sign_error_in_the_quotient_rule_is_named() -> None:
    verdict = check_step(
        "∂p_i/∂s_j",
        "(δ_ij e^{s_i} Σ_k e^{s_k} + e^{s_i} e^{s_j}) / (Σ_k e^{s_k})^2",
        assumptions=SOFTMAX,
    )
    assert not verdict.valid
    assert "a sign is wrong" in verdict.message


def test_a_line_that_stops_short_of_the_step_says_what_is_left() -> None:
    verdict = step("E[q·k]", r"E[\sum_i q_i k_i]", "Σ_a E[q_a k_a]")
    assert verdict.valid and not verdict.correct
    assert "move E or Var inside the sum" in verdict.message
