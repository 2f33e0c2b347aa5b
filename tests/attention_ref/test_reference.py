"""The NumPy reference: the worked examples of the seeds, masks, dtypes and the pitfalls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_ref.pitfalls import ATTENTION_PITFALLS, naive_softmax
from attention_ref.reference import attention, attention_flops, causal_mask, stable_softmax


def naive_loops(Q, K, V):
    """Attention written out with Python loops, the definition itself."""
    t_q, d_k = Q.shape
    out = np.zeros((t_q, V.shape[1]))
    for i in range(t_q):
        scores = [sum(Q[i, a] * K[j, a] for a in range(d_k)) / d_k**0.5 for j in range(len(K))]
        weights = np.exp(np.array(scores) - max(scores))
        weights /= weights.sum()
        out[i] = sum(w * V[j] for j, w in enumerate(weights))
    return out


def test_the_identity_example_gives_the_computed_weights() -> None:
    out, weights = attention(np.eye(3), np.eye(3), [[1.0, 0], [0, 1], [1, 1]], return_weights=True)
    np.testing.assert_allclose(weights[0], [0.47108, 0.26446, 0.26446], atol=1e-5)
    np.testing.assert_allclose(out[0], [0.73554, 0.52892], atol=1e-5)


def test_the_single_query_exercise() -> None:
    out = attention([[1.0, 0]], [[1.0, 0], [0, 1], [1, 1]], [[1.0, 2], [3, 4], [5, 6]])
    np.testing.assert_allclose(out, [[3.0, 4.0]], atol=1e-12)


def test_softmax_of_the_seed_scores() -> None:
    np.testing.assert_allclose(stable_softmax([2, 1, 0.1]), [0.659, 0.242, 0.099], atol=1e-3)
    assert stable_softmax([0, 0, 10])[2] == pytest.approx(0.99991, abs=1e-5)


def test_the_max_trick_survives_scores_that_overflow_exp() -> None:
    assert np.all(np.isfinite(stable_softmax(np.array([1000.0, 999.0, 0.0]))))
    assert np.isnan(naive_softmax(np.array([1000.0, 999.0, 0.0]))).any()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6), st.integers(1, 6), st.integers(1, 5), st.integers(1, 4), st.integers(0, 99)
)
def test_matches_the_loop_definition(t_q: int, t_k: int, d_k: int, d_v: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(t_q, d_k)), rng.normal(size=(t_k, d_k)), rng.normal(size=(t_k, d_v))
    np.testing.assert_allclose(attention(Q, K, V), naive_loops(Q, K, V), rtol=1e-10, atol=1e-12)


def test_batched_heads_are_independent() -> None:
    rng = np.random.default_rng(1)
    Q, K, V = (rng.normal(size=(2, 3, 5, 4)) for _ in range(3))
    out = attention(Q, K, V)
    assert out.shape == (2, 3, 5, 4)
    np.testing.assert_allclose(out[1, 2], attention(Q[1, 2], K[1, 2], V[1, 2]))


def test_causal_mask_in_both_conventions_and_the_flag_agree() -> None:
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    additive = attention(Q, K, V, causal_mask(4, 6))
    boolean = attention(Q, K, V, causal_mask(4, 6, boolean=True))
    flag = attention(Q, K, V, causal=True)
    np.testing.assert_allclose(additive, boolean)
    np.testing.assert_allclose(additive, flag)
    _, weights = attention(Q, K, V, causal=True, return_weights=True)
    assert weights[0, 3] == 0 and weights[0, 2] > 0  # query 0 sees keys 0..0+2 (offset 2)


def test_float32_in_float32_out() -> None:
    x = np.ones((2, 2), dtype=np.float32)
    assert attention(x, x, x).dtype == np.float32


def test_shape_mismatches_are_reported() -> None:
    with pytest.raises(ValueError, match="d_k"):
        attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="T_k"):
        attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((5, 1)))


def test_every_pitfall_differs_from_attention_on_a_generic_input() -> None:
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(5, 5)) * 3, rng.normal(size=(5, 5)) * 3, rng.normal(size=(5, 2))
    right = attention(Q, K, V)
    for name, pitfall in ATTENTION_PITFALLS.items():
        if name in ("unstable_softmax", "global_max"):
            continue  # the same numbers until the scores overflow or rows are far apart
        assert not np.allclose(pitfall(Q, K, V), right), name
    big = 200 * Q
    assert np.isnan(ATTENTION_PITFALLS["unstable_softmax"](big, big, V)).any()


def test_flops_count_two_matmuls() -> None:
    assert attention_flops(2048, 2048, 64) == 4 * 2048**2 * 64
