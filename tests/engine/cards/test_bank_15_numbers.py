"""Every number set 15 types in is recomputed independently and by the catalogue lint uses.

A `number` item states its answer; the table below says how to get that value without the
engine (the reference kernel, sympy.stats, or the formula from the seed pages), and every number
item must be in it. Numbers quoted in prompts and explanations (`stated`) are recomputed too.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import sympy
from sympy.stats import E, Normal, variance

from attention_ref.reference import attention, stable_softmax
from engine.cards.typed import NumberItem
from tests.engine.cards.bank_answers import item_15, set_15, truth


def _product_of_normals(moment: str) -> float:
    x, y = Normal("x", 0, 1), Normal("y", 0, 1)
    return float(variance(x * y) if moment == "variance" else E((x * y) ** 2))


def _masked_and_first_causal_weights() -> tuple[float, float]:
    """Weights of a causal attention over random inputs: a masked entry and entry (0, 0)."""
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    _, weights = attention(q, k, v, causal=True, return_weights=True)
    return float(weights[0, 1]), float(weights[0, 0])


def _crossover() -> float:
    """Solve lim_{T→∞} intensity(T, d_k) = 200 GFLOP/s / 20 GB/s for d_k, in float32."""
    t, d = sympy.symbols("T d_k", positive=True)
    limit = sympy.limit(2 * t**2 * d / (4 * (2 * t * d + 2 * t**2)), t, sympy.oo)
    (root,) = sympy.solve(sympy.Eq(limit, sympy.Rational(200, 20)), d)
    return float(root)


RECOMPUTE: dict[str, Callable[[], float]] = {
    "var-one-term": lambda: _product_of_normals("variance"),
    # d_k independent terms of variance Var(q_a k_a) each: the std is √(d_k · Var(q_a k_a)).
    "std-512": lambda: math.sqrt(512 * _product_of_normals("variance")),
    "masked-weight": lambda: float(stable_softmax([0.7, -np.inf, 1.2])[1]),
    "causal-first-row": lambda: _masked_and_first_causal_weights()[1],
    "machine-balance": lambda: 200e9 / 20e9,
    "roofline-crossover": _crossover,
    "head-size-from-model": lambda: 64 / 4,
}


def number_items() -> list[NumberItem]:
    return [i for i in set_15().items if isinstance(i, NumberItem)]


def test_every_number_item_has_an_independent_recomputation() -> None:
    ids = {i.id for i in number_items()}
    assert ids - set(RECOMPUTE) == set(), "add a recomputation for these number items"
    assert set(RECOMPUTE) - ids == set()


@pytest.mark.parametrize("item_id", sorted(RECOMPUTE))
def test_the_stated_number_is_what_an_independent_computation_gives(item_id: str) -> None:
    item = item_15(item_id)
    assert isinstance(item, NumberItem)
    value = RECOMPUTE[item_id]()
    assert item.grade_in_process(repr(value)).correct, (item.answer, value)


@pytest.mark.parametrize("item_id", sorted(RECOMPUTE))
def test_every_number_item_names_the_computation_lint_checks_it_with(item_id: str) -> None:
    item = item_15(item_id)
    assert isinstance(item, NumberItem) and item.compute is not None
    value = truth(item.compute, item.inputs)
    assert isinstance(value, float | int)
    assert value == pytest.approx(RECOMPUTE[item_id](), abs=1e-9)
    assert item.check_bank_in_process() == []


def test_the_masked_weight_of_a_causal_row_is_zero() -> None:
    assert _masked_and_first_causal_weights()[0] == 0.0


def test_every_number_quoted_in_the_bank_is_recomputed_and_right() -> None:
    quoting = [i for i in set_15().items if i.stated]
    assert len(quoting) >= 20
    for item in quoting:
        assert item.check_stated() == [], item.id
