"""The variance facts of set 15, re-derived: at d_k = 1..4 by brute force over the joint
distribution of the normals, and for every d_k by linearity from the moments of a single term
q_a k_a (sympy.stats)."""

from __future__ import annotations

from functools import cache

import pytest
import sympy
from sympy.stats import E, Normal, covariance, variance

from tests.engine.cards.bank_answers import by_name, item_15, stated_formula

D_K = sympy.Symbol("d_k", positive=True, integer=True)
C = sympy.Symbol("c", positive=True)
SOME_C = sympy.Integer(3)  # a concrete divisor, as the bank's c


@cache
def normal_moment(n: int) -> sympy.Expr:
    """E[zⁿ] for z ~ N(0, 1), integrated by sympy.stats."""
    return E(Normal("z", 0, 1) ** n)


def expectation(y: sympy.Expr, normals: tuple[sympy.Symbol, ...]) -> sympy.Expr:
    """E[y] for a polynomial y in independent standard normals, computed exactly: y is expanded
    into monomials, and the joint density being the product of the normals' own, a monomial's
    expectation is the product of one normal's moments (E[q_a² k_a²] = 1, E[q_a k_a q_b k_b] =
    0). No rule for the variance of sums or of scaled variables is used."""
    total = sympy.Integer(0)
    for powers, coefficient in sympy.Poly(sympy.expand(y), *normals).terms():
        term = coefficient
        for n in powers:
            term *= normal_moment(n)
        total += term
    return sympy.simplify(total)


def dot_of_normals(d: int) -> tuple[sympy.Expr, tuple[sympy.Symbol, ...]]:
    """q · k for d components, and the 2d independent N(0, 1) variables it is made of."""
    q = sympy.symbols(f"q0:{d}")
    k = sympy.symbols(f"k0:{d}")
    return sum((qa * ka for qa, ka in zip(q, k, strict=True)), sympy.Integer(0)), (*q, *k)


@cache
def small_d_facts(d: int) -> dict[str, sympy.Expr]:
    """The five facts for a concrete d (and c = 3), straight from the distribution of q · k:
    each variance by its definition, Var(Y) = E[Y²] − E[Y]²."""
    x, normals = dot_of_normals(d)

    def variance_by_definition(y: sympy.Expr) -> sympy.Expr:
        return sympy.simplify(expectation(y**2, normals) - expectation(y, normals) ** 2)

    var = variance_by_definition(x)
    return {
        "mean-dot": expectation(x, normals),
        "var-dot": var,
        "std-dot": sympy.sqrt(var),
        "var-scaled": variance_by_definition(x / sympy.sqrt(d)),
        "var-scaled-by-c": variance_by_definition(x / SOME_C),
    }


@cache  # computed once for the five items and the brute-force comparison
def general_facts() -> dict[str, sympy.Expr]:
    """The same facts for a symbolic d_k, by linearity.

    E[Σ_a t_a] = Σ_a E[t_a], and Var(Σ_a t_a) = Σ_a Var(t_a) + Σ_{a≠b} Cov(t_a, t_b) for the
    terms t_a = q_a k_a; sympy.stats gives one term's mean and variance and the covariance of
    two different terms, and a scalar c comes out of a variance squared.
    """
    qa, ka, qb, kb = (Normal(name, 0, 1) for name in ("qa", "ka", "qb", "kb"))
    term_mean, term_var = E(qa * ka), variance(qa * ka)
    cross = covariance(qa * ka, qb * kb)
    a = sympy.Symbol("a", integer=True)
    mean = sympy.Sum(term_mean, (a, 1, D_K)).doit()
    var = sympy.Sum(term_var, (a, 1, D_K)).doit() + (D_K**2 - D_K) * cross
    z = Normal("z", 0, 1)
    factor = sympy.simplify(variance(z / C) / variance(z))  # 1 / c²
    return {
        "mean-dot": mean,
        "var-dot": var,
        "std-dot": sympy.sqrt(var),
        "var-scaled": var * factor.subs(C, sympy.sqrt(D_K)),
        "var-scaled-by-c": var * factor,
    }


VARIANCE_IDS = ("mean-dot", "var-dot", "std-dot", "var-scaled", "var-scaled-by-c")


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_the_bank_matches_sympy_stats_at_small_d(d: int) -> None:
    derived = small_d_facts(d)
    for item_id in VARIANCE_IDS:
        stated = by_name(stated_formula(item_15(item_id)), {"d_k": d, "c": SOME_C})
        assert sympy.simplify(derived[item_id] - stated) == 0, (item_id, d)


@pytest.mark.parametrize("item_id", VARIANCE_IDS)
def test_the_bank_matches_the_general_proof_by_linearity(item_id: str) -> None:
    derived = general_facts()[item_id]
    stated = by_name(stated_formula(item_15(item_id)), {"d_k": D_K, "c": C})
    assert sympy.simplify(derived - stated) == 0
    assert derived.free_symbols <= {D_K, C}  # a formula for every d_k, not one case


def test_the_general_proof_agrees_with_brute_force() -> None:
    general = general_facts()
    for d in (1, 2, 3, 4):
        for item_id, value in small_d_facts(d).items():
            assert sympy.simplify(general[item_id].subs({D_K: d, C: SOME_C}) - value) == 0


def test_one_product_term_has_mean_0_second_moment_1_and_variance_1() -> None:
    x, y = Normal("x", 0, 1), Normal("y", 0, 1)
    item = item_15("var-one-term")
    assert item.expected_value() == pytest.approx(float(variance(x * y)))  # type: ignore[attr-defined]
    # The card's two listed mistakes are the mean and the sum of the two second moments.
    mistakes = {float(m.answer) for m in item.mistakes}  # type: ignore[attr-defined]
    assert mistakes == {float(E(x * y)), float(E(x**2) + E(y**2))}
    assert E((x * y) ** 2) == variance(x * y) == 1
