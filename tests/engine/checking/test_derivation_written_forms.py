"""Derivation steps written as learners and the source pages write them, and forms that only
agree in value: words after a line, σ²(X), \\vec{q}, written-out sums, the fraction a step asks
for. (Found by the held-out table tests/engine/drills/cases/steps-15-heldout-2.tsv.)"""

import pytest

from engine.checking.derivation import Assumptions, check_step
from tests.engine.checking.step_checkers import both_step_checkers  # noqa: F401  (the fixture)

# Every test runs twice: in-process, and through the checking worker as the drills do.
pytestmark = pytest.mark.usefixtures("both_step_checkers")

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk", "d_{k}")})
SOFTMAX = Assumptions(indices=("i", "j", "k"), symbols=("s_i", "m"))
ROOFLINE = Assumptions(symbols=("T",), positive=("T",), aliases={"d_k": ("d", "dk")})


# --- a reason or a unit in words after the expression --------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "Σ_a E[q_a k_a]  by linearity of expectation",
        "Σ_a E[q_a k_a]   (the terms are independent)",
        "Σ_a E[q_a k_a], since E is linear",
        "by linearity: Σ_a E[q_a k_a]",
        "so Σ_a E[q_a k_a] (E is linear)",
    ],
)
def test_words_after_a_right_line_are_its_reason_and_are_not_checked(line: str) -> None:
    verdict = check_step("E[q·k]", line, expected="Σ_a E[q_a k_a]", assumptions=SCORES)
    assert verdict.correct, verdict.message
    assert "are not checked" in verdict.message


def test_words_do_not_make_a_wrong_line_right() -> None:
    verdict = check_step(
        "Σ_a E[q_a k_a]", "Σ_a E[q_a]^2 since they are independent", assumptions=SCORES
    )
    assert verdict.readable and not verdict.correct


def test_words_alone_are_still_unreadable() -> None:
    verdict = check_step("E[q·k]", "by linearity", expected="Σ_a E[q_a k_a]", assumptions=SCORES)
    assert not verdict.readable


def test_a_unit_after_a_count_is_not_a_name() -> None:
    for line, expected in [("2 d_k T^2 FLOPs", "2 T^2 d_k"), ("d_k/4 FLOP/byte", "d_k/4")]:
        verdict = check_step(None, line, expected=expected, assumptions=ROOFLINE)
        assert verdict.correct, (line, verdict.message)


# --- notation --------------------------------------------------------------------------------


def test_sigma_squared_of_something_is_its_variance() -> None:
    for line in ["σ²(q·k) = Σ_a σ²(q_a k_a)", "\\sigma^2(q\\cdot k) = \\sum_a \\sigma^2(q_a k_a)"]:
        verdict = check_step(None, line, expected="Σ_a Var(q_a k_a)", assumptions=SCORES)
        assert verdict.correct, (line, verdict.message)
    # ... and only its variance: σ²(q·k) = d_k² is still wrong
    assert not check_step(None, "σ²(q·k) = d_k^2", expected="d_k", assumptions=SCORES).correct


@pytest.mark.parametrize(
    ("previous", "line", "expected", "assumptions"),
    [
        # a vector's arrow is only typography
        (
            "E[q·k]",
            "\\mathbb{E}[\\vec{q}\\cdot\\vec{k}] = \\sum_{i=1}^{d_k} \\mathbb{E}[q_i k_i]",
            "Σ_a E[q_a k_a]",
            SCORES,
        ),
        # a LaTeX command right after a subscript starts a new name
        (
            "e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})",
            "\\frac{\\exp(s_i-m)}{\\sum_j\\exp(s_j-m)}",
            "e^{s_i - m} / Σ_j e^{s_j - m}",
            SOFTMAX,
        ),
    ],
)
def test_latex_as_the_source_pages_write_it(
    previous: str, line: str, expected: str, assumptions: Assumptions
) -> None:
    verdict = check_step(previous, line, expected=expected, assumptions=assumptions)
    assert verdict.correct, verdict.message


# --- sums written out with an ellipsis -------------------------------------------------------


@pytest.mark.parametrize(
    ("previous", "line", "expected"),
    [
        ("E[q·k]", "E[q_1 k_1] + E[q_2 k_2] + ... + E[q_{d_k} k_{d_k}]", "Σ_a E[q_a k_a]"),
        ("Σ_a E[q_a k_a]", "E[q_1]E[k_1] + E[q_2]E[k_2] + \\dots + E[q_d]E[k_d]", None),
        ("Var(q·k)/d_k", "(Var(q_1 k_1) + Var(q_2 k_2) + … + Var(q_{d_k} k_{d_k}))/d_k", None),
    ],
)
def test_a_written_out_sum_is_the_sum(previous: str, line: str, expected: str | None) -> None:
    verdict = check_step(previous, line, expected=expected, assumptions=SCORES)
    assert verdict.correct, verdict.message
    assert "Σ_a" in verdict.interpreted_as


def test_a_written_out_sum_with_wrong_terms_is_wrong() -> None:
    line = "E[q_1]^2 E[k_1]^2 + E[q_2]^2 E[k_2]^2 + ... + E[q_{d_k}]^2 E[k_{d_k}]^2"
    verdict = check_step("Σ_a E[q_a k_a]", line, assumptions=SCORES)
    assert verdict.readable and not verdict.correct


def test_terms_that_are_not_one_pattern_are_not_read_as_a_sum() -> None:
    # 1 then 3, or a last term with another index: no sum is guessed, the line is unreadable
    for line in ["E[q_1 k_1] + E[q_3 k_3] + ... + E[q_d k_d]", "E[q_1 k_1] + E[q_2 k_2] + ... + 7"]:
        assert not check_step("E[q·k]", line, assumptions=SCORES).readable, line


# --- the fraction a step asks for ----------------------------------------------------------


@pytest.mark.parametrize("line", ["1/(4(1/T + 1/d_k))", "T/(4(1 + T/d_k))"])
def test_the_same_value_as_another_fraction_is_not_the_step(line: str) -> None:
    verdict = check_step(
        "T d_k / (4 (d_k + T))", line, expected="d_k / (4 (1 + d_k/T))", assumptions=ROOFLINE
    )
    assert verdict.valid and not verdict.correct
    assert "not the fraction this step asks for" in verdict.message


@pytest.mark.parametrize(
    ("line", "right"),
    [
        ("T d_k/(4 d_k + 4 T)", True),
        ("0.25 T d_k/(d_k + T)", True),
        ("2T^2 d_k/(8T d_k + 8T^2) = T d_k/(4(T + d_k))", True),
        ("2T^2 d_k/(8T d_k + 8T^2)", False),  # not simplified, as the step asks
    ],
)
def test_a_fraction_is_judged_by_its_numerator_and_denominator(line: str, right: bool) -> None:
    verdict = check_step(None, line, expected="T d_k / (4 (d_k + T))", assumptions=ROOFLINE)
    assert verdict.correct is right, verdict.message


@pytest.mark.parametrize(
    ("line", "right"),
    [
        ("e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})", True),
        ("(e^{-m} e^{s_i})/(e^{-m} Σ_k e^{s_k})", True),
        ("e^{s_i - m}/Σ_j e^{s_j - m}", True),  # both steps in one line
        ("e^{s_i} e^{m} / (e^{m} Σ_j e^{s_j})", False),  # e^m, not the e^{-m} asked for
        ("2e^{s_i}/(2Σ_j e^{s_j})", False),  # equal, but not multiplied by e^{-m}
    ],
)
def test_the_factor_a_step_multiplies_by_is_the_one_it_asks_for(line: str, right: bool) -> None:
    verdict = check_step(
        "e^{s_i} / Σ_j e^{s_j}",
        line,
        expected="e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})",
        assumptions=SOFTMAX,
    )
    assert verdict.correct is right, verdict.message


# --- numbers put in for E, Var and Σ -------------------------------------------------------

MEAN = "Σ_a E[q_a] E[k_a]"
VARIANCE = "Σ_a (E[q_a^2] E[k_a^2] - E[q_a]^2 E[k_a]^2)"
SCALED = "Σ_a Var(q_a k_a) / d_k"


@pytest.mark.parametrize(
    ("previous", "line", "right"),
    [
        (MEAN, "Σ_a 0·0 = 0", True),
        (MEAN, "Σ_i 0 · 0 = 0", True),  # another index letter
        (MEAN, "Σ_a 0 = 0", True),  # the product's value in one go
        (MEAN, "Σ_a 1 · 0 = 0", False),  # E[q_a] is 0, not 1
        (MEAN, "Σ_a (0 + 0) = 0", False),  # the product became a sum
        (VARIANCE, "Σ_a (1·1 − 0·0) = d_k", True),
        (VARIANCE, "\\sum_{a=1}^{d_k} (1 \\cdot 1 - 0^2 \\cdot 0^2) = d_k", True),
        (VARIANCE, "Σ_a (1 − 0) = d_k", True),
        (VARIANCE, "Σ_a (-0·0 + 1·1) = d_k", True),  # the minus kept, moved to the front
        (VARIANCE, "Σ_a (1·1 + 0·0) = d_k", False),  # the minus became a plus
        (SCALED, "d_k/d_k = 1", True),
        (SCALED, "Σ_a 1/d_k = 1", True),
        (SCALED, "d_k^2/d_k^2 = 1", False),  # the sum is d_k and the denominator d_k
        (SCALED, "√d_k/√d_k = 1", False),
    ],
)
def test_values_put_in_must_be_their_own(previous: str, line: str, right: bool) -> None:
    verdict = check_step(previous, line, assumptions=SCORES)
    assert verdict.readable
    assert verdict.correct is right, verdict.message
    if not right:
        assert "not how you got it" in verdict.message


# --- a rounded value after the exact one -----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "right"),
    [
        ("√512 ≈ 22.63", True),
        ("\\sqrt{512} = 16\\sqrt{2} \\approx 22.6", True),
        ("√512 ≈ 22.5", False),  # the rounding does not hold
        ("√256 ≈ 16.0", False),  # it holds, but √256 is not the answer
    ],
)
def test_a_rounded_value_after_the_exact_one_must_hold(line: str, right: bool) -> None:
    verdict = check_step(None, line, expected="sqrt(512)", assumptions=SCORES)
    assert verdict.readable
    assert verdict.correct is right, verdict.message
    if line.endswith("22.5"):
        assert "does not hold" in verdict.message


def test_a_rounding_of_something_that_is_not_a_number_stays_unreadable() -> None:
    assert not check_step(None, "d_k ≈ 3", expected="d_k", assumptions=SCORES).readable


def test_the_step_then_back_to_the_line_it_came_from_states_the_identity() -> None:
    start = "e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})"
    expected = "e^{s_i - m} / Σ_j e^{s_j - m}"
    right = "e^{s_i−m}/Σ_j e^{s_j−m} = e^{s_i}/Σ_j e^{s_j}"
    assert check_step(start, right, expected=expected, assumptions=SOFTMAX).correct
    # ... but going back without the step in between is still no step
    back = "e^{s_i} e^{-m}/(e^{-m} Σ_j e^{s_j}) = e^{s_i}/Σ_j e^{s_j}"
    assert not check_step(start, back, expected=expected, assumptions=SOFTMAX).correct


def test_a_factor_asked_into_a_sum_must_be_moved_in() -> None:
    start = "e^{s_i} e^{-m} / (e^{-m} Σ_j e^{s_j})"
    expected = "e^{s_i - m} / Σ_j e^{s_j - m}"
    outside = check_step(
        start, "e^{s_i-m}/(e^{-m}Σ_j e^{s_j})", expected=expected, assumptions=SOFTMAX
    )
    assert outside.valid and not outside.correct
    inside = check_step(
        start, "e^{s_i-m}/Σ_j (e^{s_j} e^{-m})", expected=expected, assumptions=SOFTMAX
    )
    assert inside.correct, inside.message
