"""The attention formula is judged by meaning: every spelling right, every classic slip wrong."""

import pytest

from engine.checking import check_expression

EXPECTED = "softmax(Q K^T / sqrt(d_k)) V"
ALIASES = {"d_k": ["d", "dk", "d_{k}"]}


def grade(answer: str, **extra: object):
    return check_expression(
        answer,
        EXPECTED,
        aliases=ALIASES,
        positive=["d_k"],
        noncommutative=["Q", "K", "V"],
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "answer",
    [
        "softmax(Q K^T / sqrt(d_k)) V",
        "softmax(QK^T/√d_k)V",
        "softmax(Q@K.T/sqrt(d))@V",
        "softmax((Q*K^T)/d_k**0.5)*V",
        "softmax(QKᵀ/√dₖ)·V",
        "softmax(QKᵀ/√d_k)·V",
        "softmax(Q K^{T} / \\sqrt{d_{k}}) V",
        "softmax(\\frac{QK^\\top}{\\sqrt{d_k}})V",
        "softmax(Q K^T / sqrt(dk)) V",
        "softmax(Q K^T d_k^(-1/2)) V",
        "softmax(1/sqrt(d_k) Q K^T) V",
        "softmax(Q (K/sqrt(d_k))^T) V",
        "softmax((K Q^T)^T / sqrt(d_k)) V",
        "softmax(Q × Kᵀ ÷ √d) × V",
    ],
)
def test_equivalent_spellings_of_the_formula_are_correct(answer: str) -> None:
    verdict = grade(answer)
    assert verdict.correct, verdict
    assert verdict.valid
    assert verdict.score == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "softmax(QK^T/d_k)V",
        "softmax(QK^T)V",
        "softmax(QK/sqrt(d_k))V",
        "softmax(Q^TK/sqrt(d_k))V",
        "softmax(QK^TV/sqrt(d_k))",
        "(QK^T/sqrt(d_k))V",
        "V softmax(QK^T/sqrt(d_k))",
        "softmax(QK^T)V/sqrt(d_k)",
        "softmax(KQ^T/sqrt(d_k))V",
        "softmax(QK^T/sqrt(d_k))V^T",
    ],
)
def test_classic_mistakes_in_the_formula_are_wrong(answer: str) -> None:
    verdict = grade(answer)
    assert verdict.valid, verdict
    assert not verdict.correct, verdict
    assert verdict.score == 0.0


def test_missing_transpose_is_wrong() -> None:
    assert not grade("softmax(QK/sqrt(d_k))V").correct


def test_matrix_products_do_not_commute() -> None:
    assert not grade("softmax(K^T Q/sqrt(d_k))V").correct


def test_scalars_commute_with_matrices() -> None:
    assert grade("softmax(Q/sqrt(d_k) K^T)V").correct


def test_interpretation_is_shown_readably() -> None:
    assert grade("softmax(Q@K.T/sqrt(d))@V").interpreted_as == "softmax(Q·Kᵀ/√d_k)·V"


def test_a_listed_mistake_gives_its_message() -> None:
    mistakes = [
        ("softmax(Q K^T / d_k) V", "divide by sqrt(d_k), not d_k"),
        ("softmax(Q K^T) V", "you forgot the scaling"),
    ]
    verdict = grade("softmax(QKᵀ/d)V", mistakes=mistakes)
    assert not verdict.correct
    assert verdict.feedback == "divide by sqrt(d_k), not d_k"
    assert grade("softmax(QK^T)V", mistakes=mistakes).feedback == "you forgot the scaling"


def test_an_unlisted_wrong_answer_names_what_is_missing() -> None:
    verdict = grade("softmax(QK^T/sqrt(d_k))")
    assert "does not use V" in verdict.feedback


def test_an_unknown_symbol_is_unreadable_and_named() -> None:
    verdict = grade("softmax(QK^T/sqrt(d_v))V")
    assert not verdict.valid
    assert "`d_v` is not a known name" in verdict.feedback
