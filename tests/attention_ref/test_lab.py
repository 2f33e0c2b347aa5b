"""The scaling lab's numbers, checked against computations that do not use the lab or the kernel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_ref.lab import SWEEP_D_K, draw_qkv, row_entropy, scaling_lab


def naive_softmax(scores: np.ndarray) -> np.ndarray:
    # Fine in float64 for the score sizes used here (|s| < 200).
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def lab64():
    return scaling_lab(64, 8, 0)


@pytest.mark.parametrize("tokens", [2, 5, 8, 16])
def test_uniform_rows_have_the_maximum_entropy_ln_t(tokens: int) -> None:
    uniform = np.full((tokens, tokens), 1 / tokens)
    assert row_entropy(uniform) == pytest.approx(np.full(tokens, math.log(tokens)))


def test_one_hot_rows_have_zero_entropy_and_zero_weights_count_nothing() -> None:
    rows = np.array([[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]])
    assert row_entropy(rows) == pytest.approx([0.0, math.log(2)])


def test_entropy_agrees_with_a_term_by_term_sum() -> None:
    rng = np.random.default_rng(7)
    rows = rng.dirichlet(np.ones(6), size=5)
    by_hand = [-sum(p * math.log(p) for p in row) for row in rows]
    assert row_entropy(rows) == pytest.approx(by_hand)


def test_weights_are_softmax_of_the_scores_with_and_without_the_scale(lab64) -> None:
    q, k, _ = draw_qkv(8, 64, 0)
    scores = q @ k.T
    assert lab64.unscaled.weights == pytest.approx(naive_softmax(scores), abs=1e-12)
    assert lab64.scaled.weights == pytest.approx(naive_softmax(scores / 8.0), abs=1e-12)
    assert lab64.unscaled.row_max == pytest.approx(naive_softmax(scores).max(axis=1))
    assert lab64.unscaled.score_std == pytest.approx(scores.std())
    assert lab64.scaled.score_std == pytest.approx(scores.std() / 8.0)


def test_causal_weights_are_exactly_zero_above_the_diagonal(lab64) -> None:
    weights = lab64.causal.weights
    assert np.all(weights[np.triu_indices(8, k=1)] == 0.0)
    assert weights.sum(axis=1) == pytest.approx(np.ones(8))
    q, k, _ = draw_qkv(8, 64, 0)
    for i in range(8):
        # Row i is the softmax over the keys it may see, 0..i.
        visible = naive_softmax(q[i] @ k[: i + 1].T / 8.0)
        assert weights[i, : i + 1] == pytest.approx(visible, abs=1e-12)
    assert lab64.causal.row_entropy[0] == 0.0  # the first query sees one key only


def std_tolerance(d_k: int, tokens: int, samples: int) -> float:
    """Five standard errors of the std estimate of q·k, relative to √d_k.

    Var(s²) = 2 d² + 6 d for s = q·k with N(0, 1) entries; scores that share a query or a key have
    squares with covariance 2 d, which inflates the variance of the mean of s² by
    1 + 2 (T - 1) / (d + 3) for T x T blocks. The std's relative error is half the variance's.
    """
    inflation = 1 + 2 * (tokens - 1) / (d_k + 3)
    variance_of_mean = (2 * d_k**2 + 6 * d_k) * inflation / samples
    return 5 * math.sqrt(variance_of_mean) / d_k / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unscaled_score_std_is_sqrt_d_k_and_scaled_std_is_one(seed: int) -> None:
    lab = scaling_lab(64, 8, seed)
    for row in lab.sweep:
        tolerance = std_tolerance(row.d_k, 8, row.samples)
        assert tolerance < 0.1  # the sample is large enough to say something
        assert row.std_unscaled / math.sqrt(row.d_k) == pytest.approx(1, abs=tolerance)
        assert row.std_scaled == pytest.approx(1, abs=tolerance)


def test_without_the_scale_rows_grow_peaked_as_d_k_grows(lab64) -> None:
    maxes = [row.mean_max_unscaled for row in lab64.sweep]
    entropies = [row.mean_entropy_unscaled for row in lab64.sweep]
    assert maxes == sorted(maxes)
    assert entropies == sorted(entropies, reverse=True)
    assert lab64.sweep_row(1024).mean_max_unscaled > 0.9


def test_with_the_scale_rows_look_the_same_at_every_d_k(lab64) -> None:
    maxes = [row.mean_max_scaled for row in lab64.sweep]
    entropies = [row.mean_entropy_scaled for row in lab64.sweep]
    assert max(maxes) - min(maxes) < 0.05
    assert max(entropies) - min(entropies) < 0.1


def test_unscaled_entropy_is_lower_than_scaled_at_large_d_k() -> None:
    lab = scaling_lab(256, 8, 0)
    assert lab.unscaled.row_entropy.mean() < lab.scaled.row_entropy.mean()
    for row in lab.sweep:
        if row.d_k >= 64:
            assert row.mean_entropy_unscaled < row.mean_entropy_scaled / 2


def test_sweep_holds_the_ladder_plus_the_chosen_d_k() -> None:
    lab = scaling_lab(100, 4, 3)
    assert [row.d_k for row in lab.sweep] == sorted({*SWEEP_D_K, 100})
    # Each d_k has its own stream: choosing another d_k leaves the other rows as they were.
    assert scaling_lab(64, 4, 3).sweep_row(16) == lab.sweep_row(16)


def test_same_seed_same_numbers_other_seed_other_numbers(lab64) -> None:
    again = scaling_lab(64, 8, 0)
    assert np.array_equal(again.unscaled.weights, lab64.unscaled.weights)
    assert again.sweep == lab64.sweep
    other = scaling_lab(64, 8, 1)
    assert not np.array_equal(other.unscaled.weights, lab64.unscaled.weights)


def test_nonsense_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="d_k"):
        scaling_lab(0, 8, 0)
