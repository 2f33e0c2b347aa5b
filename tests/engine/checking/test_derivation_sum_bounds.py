"""A sum's written bounds count: Σ_{a=2}^{d_k} or Σ_{a=1}^{3} is not the sum over every component.

q·k sums over all d_k components, a = 1..d_k; a learner who counts from 0 writes a = 0..d_k−1,
which a grader accepts too. Bounds that leave terms out (or add one) make a different sum, judged
wrong with a message that names the bounds written and the range expected.
"""

import pytest

from engine.checking.derivation import Assumptions, check_step

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk", "d_{k}")})
SOFTMAX = Assumptions(indices=("i", "j", "k"), symbols=("s_j",))
MEAN = "E[q·k]"
EXPECTED = "Σ_a E[q_a k_a]"


@pytest.mark.parametrize(
    "line",
    [
        "Σ_a E[q_a k_a]",
        "Σ_{a=1}^{d_k} E[q_a k_a]",
        "\\sum_{i=1}^{d_k} E[q_i k_i]",
        "\\sum^{d_k}_{i=1} E[q_i k_i]",
        "\\sum_{i=1}^{d_{k}} E[q_i k_i]",
        "Σ_{a=1}^{d} E[q_a k_a]",  # d is the drill's own spelling of d_k
        "Σ_{a=0}^{d_k-1} E[q_a k_a]",  # counted from 0: still every component
        "Σ_{a=1} E[q_a k_a]",
        "sum over a E[q_a k_a]",
        "E[q·k] = sum over i E[q_i k_i]",
    ],
)
def test_a_sum_over_every_component_is_right(line: str) -> None:
    verdict = check_step(MEAN, line, expected=EXPECTED, assumptions=SCORES)
    assert verdict.correct, verdict.message


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("E[q·k] = Σ_{a=1}^{3} E[q_a k_a]", "a = 1..3"),
        ("Σ_{a=2}^{d_k} E[q_a k_a]", "a = 2..d_k"),
        ("\\sum_{i=1}^{d_k - 1} E[q_i k_i]", "i = 1..d_k−1"),
        ("\\sum_{i=0}^{d_k} E[q_i k_i]", "i = 0..d_k"),
        ("Σ_{a=1}^{n} E[q_a k_a]", "a = 1..n"),
        ("sum_(a=2) E[q_a k_a]", "a = 2..d_k"),
        ("Σ_{a=2}^{d_k} E[q_a k_a]  since E is linear", "a = 2..d_k"),
    ],
)
def test_a_sum_over_part_of_the_range_is_wrong_and_names_its_bounds(line: str, shown: str) -> None:
    verdict = check_step(MEAN, line, expected=EXPECTED, assumptions=SCORES)
    assert verdict.readable and not verdict.valid and not verdict.correct
    assert f"runs over {shown}" in verdict.message
    assert "1..d_k" in verdict.message


def test_a_position_index_may_run_to_the_count_under_any_name_but_not_to_another_index() -> None:
    full = check_step(None, "e^{s_i} / \\sum_{j=1}^{T} e^{s_j}", assumptions=SOFTMAX)
    assert full.readable and "runs over" not in full.message, full.message
    causal = check_step(None, "e^{s_i} / \\sum_{j=1}^{i} e^{s_j}", assumptions=SOFTMAX)
    assert not causal.valid and "runs over j = 1..i" in causal.message


@pytest.mark.parametrize("line", ["Σ_{a=}^{d_k} E[q_a k_a]", "Σ_{a=1}^{} E[q_a k_a]", "Σ_{=1} E"])
def test_an_empty_index_or_bound_is_unreadable_not_graded(line: str) -> None:
    verdict = check_step(MEAN, line, expected=EXPECTED, assumptions=SCORES)
    assert not verdict.readable and "empty" in verdict.message, verdict.message
