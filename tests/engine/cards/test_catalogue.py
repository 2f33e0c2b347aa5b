"""The computations added to the catalogue agree with independent formulas and reject bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from attention_ref.reference import attention_flops, stable_softmax
from engine.cards.catalogue import COMPUTATIONS, computation_named
from engine.cards.cost_computations import intensity
from tests.engine.cards.bank_answers import truth


@pytest.mark.parametrize("seed", range(5))
def test_the_softmax_backward_is_the_jacobian_transpose_times_the_upstream(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s, g = rng.normal(size=5), rng.normal(size=5)
    p = stable_softmax(s)
    jacobian = np.diag(p) - np.outer(p, p)  # ∂p_i/∂s_j
    got = truth("softmax_backward", {"scores": s.tolist(), "upstream": g.tolist()})
    assert np.allclose(got, jacobian.T @ g)
    assert sum(got) == pytest.approx(0, abs=1e-12)  # a shift of all scores changes nothing


def test_softmax_takes_a_divisor_as_a_temperature() -> None:
    scores = [2.0, 1.0, 0.0]
    assert truth("softmax", {"scores": scores, "divisor": 4}) == pytest.approx(
        stable_softmax(np.array(scores) / 4).tolist()
    )
    assert truth("softmax", {"scores": scores}) == pytest.approx(stable_softmax(scores))


def test_score_rows_and_weighted_values_are_matrix_products() -> None:
    q, k = [[1, 0], [0, 1]], [[1, 0], [1, 1], [0, 1]]
    assert truth("score_row", {"Q": q, "K": k, "row": 2}) == [0.0, 1.0, 1.0]
    scaled = truth("score_row", {"Q": q, "K": k, "row": 2, "scaled": True})
    assert scaled == pytest.approx([0, 2**-0.5, 2**-0.5])
    weights, v = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1]], [[1, 0], [0, 1], [1, 1]]
    got = truth("weighted_values_row", {"weights": weights, "V": v, "row": 1})
    assert got == pytest.approx((np.array(weights) @ np.array(v))[0])


def test_weights_must_be_distributions_that_fit_v() -> None:
    computation = computation_named("weighted_values_row")
    with pytest.raises(ValueError, match="sum to 1"):
        computation.validate({"weights": [[0.5, 0.2]], "V": [[1], [2]], "row": 1})
    with pytest.raises(ValueError, match="2 columns but V has 3 rows"):
        computation.validate({"weights": [[0.5, 0.5]], "V": [[1], [2], [3]], "row": 1})


def test_counts_times_and_the_roofline_follow_the_seed_figures() -> None:
    assert truth("score_count", {"T": 4096, "unit": "million"}) == 4096**2 / 1e6
    seconds = truth(
        "attention_seconds",
        {"T": 2048, "d_k": 64, "heads": 16, "layers": 24, "peak_gflops": 200},
    )
    assert seconds == pytest.approx(attention_flops(2048, 2048, 64) * 384 / 200e9)
    balance = truth("machine_balance", {"peak_gflops": 200, "bandwidth_gbs": 20})
    assert balance == 10
    crossover = truth("roofline_crossover", {"balance": 10, "dtype": "float32"})
    # At the crossover head size, a very long sequence's intensity equals the balance.
    far = intensity({"T": 10**9, "d_k": crossover, "dtype": "float32"})
    assert far == pytest.approx(balance, rel=1e-6)
    assert truth("head_size", {"d_model": 64, "heads": 4}) == 16
    with pytest.raises(ValueError, match="not a multiple"):
        computation_named("head_size").validate({"d_model": 64, "heads": 5})


def test_moments_of_a_product_of_standard_normals() -> None:
    values = {m: truth("normal_product", {"moment": m}) for m in ("mean", "second_moment")}
    assert values == {"mean": 0.0, "second_moment": 1.0}
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 200_000))
    assert np.var(x * y) == pytest.approx(truth("normal_product", {"moment": "variance"}), abs=0.02)


def test_every_computation_names_itself_in_the_catalogue() -> None:
    assert all(name == c.name for name, c in COMPUTATIONS.items())
    with pytest.raises(ValueError, match="is not one of"):
        computation_named("eval")
