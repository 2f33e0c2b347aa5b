"""The variance facts of set 15, re-derived independently with sympy.stats at small d_k."""

from __future__ import annotations

import pytest
import sympy
from sympy.stats import E, Normal, variance

from engine.checking.expression import check_expression


def dot_of_normals(d: int) -> sympy.Expr:
    q = [Normal(f"q{a}", 0, 1) for a in range(d)]
    k = [Normal(f"k{a}", 0, 1) for a in range(d)]
    return sum((qa * ka for qa, ka in zip(q, k, strict=True)), sympy.Integer(0))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_mean_and_variance_of_the_dot_product_at_small_d(d: int) -> None:
    x = dot_of_normals(d)
    assert sympy.simplify(E(x)) == 0  # mean-dot: 0
    assert sympy.simplify(variance(x)) == d  # var-dot: d_k
    assert sympy.simplify(variance(x / sympy.sqrt(d))) == 1  # var-scaled: 1


@pytest.mark.parametrize(
    ("answer", "fact"),
    [("0", "mean"), ("d_k", "variance"), ("sqrt(d_k)", "std"), ("1", "scaled variance")],
)
def test_the_bank_answers_match_the_general_formulas(answer: str, fact: str) -> None:
    # The general proof by linearity: Var(Σ_a q_a k_a) = Σ_a E[q_a²] E[k_a²] = d_k.
    d = sympy.Symbol("d_k", positive=True, integer=True)
    general = {"mean": 0, "variance": d, "std": sympy.sqrt(d), "scaled variance": d / d}[fact]
    verdict = check_expression(str(general), answer, positive=["d_k"], integer=["d_k"])
    assert verdict.correct, verdict


def test_std_at_512_is_about_22_6() -> None:
    assert float(sympy.sqrt(512)) == pytest.approx(22.627, abs=1e-3)
