"""The audit of set 15 (issue 16): the items it found wrong now grade as a careful examiner
would, and the facts the new cards state are recomputed here from first principles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_ref.reference import stable_softmax
from engine.cards.choice import ChoiceItem
from engine.cards.cloze import ClozeItem
from tests.engine.cards.bank_answers import item_15, set_15


def cloze(item_id: str) -> ClozeItem:
    item = item_15(item_id)
    assert isinstance(item, ClozeItem)
    return item


@pytest.mark.parametrize(
    ("item_id", "answer", "correct"),
    [
        # NumPy's transpose(-2, -1) lists the axes in their own order: a no-op on a 2-D K.
        ("cloze-five-lines-transpose", "K.transpose(-2, -1)", False),
        ("cloze-five-lines-transpose", "K.T", True),
        ("cloze-five-lines-transpose", "K.swapaxes(-2, -1)", True),
        # d_k is not defined inside the function the blank belongs to.
        ("cloze-five-lines-scale", "np.sqrt(d_k)", False),
        ("cloze-five-lines-scale", "d_k ** 0.5", False),
        ("cloze-five-lines-scale", "np.sqrt(K.shape[-1])", True),
        # The whole expected line, as the card shows it afterwards.
        ("cloze-five-lines-values", "return A @ V", True),
        ("cloze-five-lines-values", "return A@V", True),
        ("cloze-five-lines-values", "A @ V", True),
        ("cloze-five-lines-values", "return V @ A", False),
        # Large finite negatives are a standard mask value.
        ("cloze-causal-mask", "-1e9", True),
        ("cloze-causal-mask", "-np.inf", True),
        ("cloze-causal-mask", "1e9", False),
        ("cloze-softmax-backward-matrix", "(G ⊙ A) 1", True),
        ("cloze-softmax-backward-matrix", "(G * A).sum(axis=-1, keepdims=True)", True),
        ("cloze-softmax-backward-matrix", "G ⊙ A", False),
    ],
)
def test_the_cloze_cards_the_audit_named_grade_fairly(item_id, answer, correct) -> None:
    assert cloze(item_id).grade_in_process(answer).correct is correct


def test_numpy_transpose_minus_two_minus_one_is_a_no_op_on_a_matrix() -> None:
    k = np.arange(6).reshape(2, 3)
    assert np.array_equal(k.transpose(-2, -1), k)
    assert np.array_equal(k.swapaxes(-2, -1), k.T)


def test_the_wrong_transpose_gets_the_explanation_not_a_generic_miss() -> None:
    verdict = cloze("cloze-five-lines-transpose").grade_in_process("K.transpose(-2, -1)")
    assert "changes nothing" in verdict.feedback


def test_dividing_by_the_max_can_leave_a_row_one_hot() -> None:
    # The old card claimed division by the max "can never become sharp".
    scaled = np.array([10.0, -1000.0]) / 10.0
    assert stable_softmax(scaled)[0] > 0.999999
    row = np.array([-1.0, -2.0, -3.0])
    assert np.array_equal(row / row.max(), [1.0, 2.0, 3.0])  # the order flips


def test_a_large_finite_negative_mask_zeroes_weights_and_avoids_a_nan_row() -> None:
    scores = np.array([[0.3, 1.2, -0.4]], dtype=np.float32)
    masked = scores + np.array([[0.0, -1e9, -1e9]], dtype=np.float32)
    assert np.array_equal(stable_softmax(masked)[0, 1:], [0.0, 0.0])
    with np.errstate(invalid="ignore"):
        assert np.isfinite(stable_softmax(scores + np.float32(-1e9))).all()
        assert np.isnan(stable_softmax(scores + np.float32(-np.inf))).all()


def expected_maximum_of_normals(n: int) -> float:
    """E[max of n independent N(0, 1)], by integrating x · n φ(x) Φ(x)^(n-1)."""
    x = np.linspace(-12.0, 12.0, 240_001)
    phi = np.exp(-(x**2) / 2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    return float(np.trapezoid(x * n * phi * cdf ** (n - 1), x))


def test_the_top_score_of_a_row_sits_three_to_four_sigma_above_the_mean() -> None:
    item = item_15("top-score-sigmas")
    assert isinstance(item, ChoiceItem) and "3–4" in item.answer_text()
    sigmas = {n: expected_maximum_of_normals(n) for n in (512, 2048, 8192)}
    assert [round(sigmas[n], 1) for n in (512, 2048, 8192)] == [3.0, 3.4, 3.8]
    assert 24 <= 8 * sigmas[2048] <= 32
    rng = np.random.default_rng(16)
    simulated = rng.standard_normal((400, 2048)).max(axis=1).mean()
    assert simulated == pytest.approx(sigmas[2048], abs=0.05)


def test_softmax_of_x_0_0_0_saturates_between_four_and_six() -> None:
    first = {x: stable_softmax([x, 0.0, 0.0, 0.0])[0] for x in (3.0, 4.0, 4.1, 5.6, 5.8, 6.0)}
    assert first[4.0] < 0.95 < first[4.1] and first[5.6] < 0.99 < first[5.8]
    assert "4 to 6" in item_15("saturation-range").answer_text()


def test_the_naive_float32_softmax_of_100_200_300_is_nan_and_float64_survives() -> None:
    def naive(s: np.ndarray) -> np.ndarray:
        e = np.exp(s)
        return e / e.sum()

    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(naive(np.array([100, 200, 300], dtype=np.float32))).all()
        assert np.allclose(naive(np.array([100.0, 200.0, 300.0])), [0, 0, 1])
    assert f"{math.exp(300):.1e}" == "1.9e+130"  # the explanation's e³⁰⁰ ≈ 1.9 × 10¹³⁰
    assert item_15("naive-softmax-float32").answer_text() == "[nan, nan, nan]"


def test_the_matrix_softmax_backward_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    s, g = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    a = stable_softmax(s)
    formula = a * (g - (g * a).sum(axis=-1, keepdims=True))
    eps, numeric = 1e-6, np.zeros_like(s)
    for i in range(3):
        for j in range(4):
            bump = np.zeros_like(s)
            bump[i, j] = eps
            numeric[i, j] = (
                (g * stable_softmax(s + bump)).sum() - (g * stable_softmax(s - bump)).sum()
            ) / (2 * eps)
    assert np.allclose(formula, numeric, atol=1e-6)
    card = item_15("softmax-backward-matrix")
    a2, g2 = np.array([[0.5, 0.5], [0.2, 0.8]]), np.eye(2)
    expected = a2 * (g2 - (g2 * a2).sum(axis=-1, keepdims=True))
    assert card.grade_in_process(str(expected.tolist())).correct  # type: ignore[attr-defined]


def test_rows_and_columns_are_counted_from_one_in_every_prompt() -> None:
    zero_based = ("row 0", "column 0", "position 0", "key 0", "query 0", "A₀₀", "V₀")
    for item in set_15().items:
        text = " ".join(t for t in (item.prompt, item.hint, item.explanation) if t)
        assert not [z for z in zero_based if z in text], item.id


def test_checking_a_retired_id_names_its_successors(capsys) -> None:
    from engine.cli import main

    assert main(["check", "15", "qkv-roles", "--answer", "x"]) == 2
    err = capsys.readouterr().err
    assert "'qkv-roles' of set 15 was retired; it is now: qkv-query, qkv-key, qkv-value" in err
