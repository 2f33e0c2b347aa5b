"""Every formula set 15 states is re-derived by SymPy and compared with the bank's answer.

Each derivation works from the definitions (the softmax, the products S = Q Kᵀ / √d_k and
O = A V, counts of multiply-adds and bytes) and never from the bank's text; the bank's answer is
read the way the engine reads it and must equal the result. Adding a formula item without a
derivation here fails `test_every_formula_item_has_a_derivation`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import sympy
from sympy.stats import Normal, variance

from attention_ref.reference import attention, attention_flops, causal_mask, stable_softmax
from tests.engine.cards.bank_answers import (
    by_name,
    evaluate_on_matrices,
    item_15,
    stated_formula,
    symbol_matrix,
    symbolic_items,
)
from tests.engine.test_bank_facts import VARIANCE_IDS

T, D = sympy.symbols("T d_k", positive=True, integer=True)
SCORES = sympy.symbols("s0:4")


def stated(item_id: str) -> sympy.Expr:
    return stated_formula(item_15(item_id))


def is_zero(expr: sympy.Expr | sympy.MatrixBase) -> bool:
    if isinstance(expr, sympy.MatrixBase):
        return all(sympy.simplify(x) == 0 for x in expr)
    return sympy.simplify(expr) == 0


# -- the equation and the gradients of its matrix products ------------------------------------
def equation() -> None:
    rng = np.random.default_rng(15)
    q, k, v = rng.integers(-2, 3, (2, 3)), rng.integers(-2, 3, (4, 3)), rng.integers(-2, 3, (4, 2))
    values = {"Q": sympy.Matrix(q), "K": sympy.Matrix(k), "V": sympy.Matrix(v), "d_k": 3}
    ours = np.array(evaluate_on_matrices(stated("attention-equation"), values).evalf(), float)
    assert np.allclose(ours, attention(q, k, v))


def scores_blank() -> None:
    Q, K = symbol_matrix("q", 2, 3), symbol_matrix("k", 4, 3)
    pairwise = sympy.Matrix(2, 4, lambda i, j: sum(Q[i, a] * K[j, a] for a in range(3)))
    assert is_zero(
        evaluate_on_matrices(stated("cloze-equation-scores"), {"Q": Q, "K": K}) - pairwise
    )


def gradient(item_id: str, wrt: str) -> Callable[[], None]:
    """∂L/∂X for L = Σ G ⊙ (product), by differentiating entry by entry."""

    def derive() -> None:
        if wrt in "QK":
            Q, K, G = symbol_matrix("q", 2, 3), symbol_matrix("k", 4, 3), symbol_matrix("g", 2, 4)
            product = Q * K.T / sympy.sqrt(D)
            values = {"Q": Q, "K": K, "G": G, "d_k": D}
        else:
            A, V, G = symbol_matrix("a", 2, 4), symbol_matrix("v", 4, 3), symbol_matrix("g", 2, 3)
            product, values = A * V, {"A": A, "V": V, "G": G}
        loss = sum(G[i, j] * product[i, j] for i in range(G.rows) for j in range(G.cols))
        X = values[wrt]
        derived = X.applyfunc(lambda x: sympy.diff(loss, x))
        assert is_zero(evaluate_on_matrices(stated(item_id), values) - derived)

    return derive


# -- the softmax and its Jacobian ---------------------------------------------------------------
def softmax_of(n: int) -> list[sympy.Expr]:
    exps = [sympy.exp(s) for s in SCORES[:n]]
    return [e / sum(exps) for e in exps]


def jacobian(item_id: str, pairs: str, blank_times_p_i: bool = False) -> Callable[[], None]:
    def derive() -> None:
        formula = stated(item_id)
        p = softmax_of(3)
        for i in range(3):
            for j in range(3):
                if (pairs == "diagonal" and i != j) or (pairs == "off" and i == j):
                    continue
                values = {"p_i": p[i], "p_j": p[j], "delta_ij": int(i == j)}
                claim = by_name(formula, values) * (p[i] if blank_times_p_i else 1)
                assert is_zero(sympy.diff(p[i], SCORES[j]) - claim), (item_id, i, j)

    return derive


def softmax_numerator() -> None:
    numerator = stated("cloze-softmax-definition")
    scores = [2.0, 1.0, 0.1]
    tops = [float(by_name(numerator, {"s_i": s})) for s in scores]
    assert np.allclose(np.array(tops) / sum(tops), stable_softmax(scores))


# -- variance pieces of the cloze cards ----------------------------------------------------------
def scale_blanks() -> None:
    z = Normal("z", 0, 1)
    c = sympy.Symbol("c", positive=True)
    var_dot = D * variance(z)  # d_k independent unit-variance terms
    (root,) = sympy.solve(sympy.Eq(var_dot * variance(z / c), 1), c)
    assert is_zero(by_name(stated("cloze-equation-scale"), {"d_k": D}) - root)
    divisor = var_dot / (var_dot * variance(z / sympy.sqrt(D)))
    assert is_zero(by_name(stated("cloze-variance-scaled"), {"d_k": D}) - divisor)


# -- counting FLOPs and bytes --------------------------------------------------------------------
def matmul_flops(rows: sympy.Expr, cols: sympy.Expr, inner: sympy.Expr) -> sympy.Expr:
    """A multiply and an add (2 FLOPs) per term of every dot product, summed over the output."""
    i, j, a = sympy.symbols("i j a", integer=True)
    return sympy.Sum(2, (a, 1, inner), (j, 1, cols), (i, 1, rows)).doit()


def flops() -> None:
    qk = matmul_flops(T, T, D)
    both = qk + matmul_flops(T, T, D)  # A V with d_v = d_k
    names = {"T": T, "d_k": D}
    assert is_zero(by_name(stated("flops-qk"), names) - qk)
    assert is_zero(by_name(stated("flops-total"), names) - both)
    for t, d in ((256, 16), (2048, 64)):
        assert both.subs({T: t, D: d}) == attention_flops(t, t, d)
    tq, tk = sympy.symbols("T_q T_k", positive=True, integer=True)
    general = by_name(stated("flops-qk-general"), {"T_q": tq, "T_k": tk, "d_k": D})
    assert is_zero(general - matmul_flops(tq, tk, D))


def value_flops_and_memory() -> None:
    dv = sympy.Symbol("d_v", positive=True, integer=True)
    names = {"T": T, "d_v": dv}
    assert is_zero(by_name(stated("flops-av"), names) - matmul_flops(T, dv, T))
    # The two inputs of A V: the T × T weights and the T × d_v values, counted entry by entry.
    weights, values = np.ones((7, 7)), np.ones((7, 3))
    assert by_name(stated("memory-av"), {"T": 7, "d_v": 3}) == weights.size + values.size
    i, j = sympy.symbols("i j", integer=True)
    entries = sympy.Sum(1, (i, 1, T), (j, 1, T)).doit() + sympy.Sum(1, (i, 1, T), (j, 1, dv)).doit()
    assert is_zero(by_name(stated("memory-av"), names) - entries)


def qk_bytes(s_passes: int = 2) -> sympy.Expr:
    """float32 traffic of S = Q Kᵀ as its own step: read Q and K, then S crosses the bus
    `s_passes` times (written; read back by the softmax)."""
    return 4 * (T * D + T * D + s_passes * T * T)


def intensity() -> None:
    names = {"T": T, "d_k": D}
    derived = matmul_flops(T, T, D) / qk_bytes()
    assert is_zero(by_name(stated("intensity"), names) - derived)
    assert is_zero(by_name(stated("cloze-intensity-bytes"), names) - qk_bytes())
    assert is_zero(by_name(stated("intensity-limit"), names) - sympy.limit(derived, T, sympy.oo))


def intensity_s_once() -> None:
    """Seed 000's count (S written once): its simplification T d_k / (4 (d_k + T)) is a slip."""
    names = {"T": T, "d_k": D}
    derived = matmul_flops(T, T, D) / qk_bytes(s_passes=1)
    assert is_zero(by_name(stated("intensity-s-once"), names) - derived)
    assert is_zero(
        by_name(stated("intensity-s-once-limit"), names) - sympy.limit(derived, T, sympy.oo)
    )
    assert not is_zero(derived - T * D / (4 * (D + T)))


# -- masking ---------------------------------------------------------------------------------
def causal_keys() -> None:
    """Positions counted from 1: the query at position i sees keys 1 … i."""
    formula = stated("causal-keys-seen")
    seen = causal_mask(7, 7, boolean=True).sum(axis=1)
    for row in range(7):
        assert by_name(formula, {"i": row + 1}) == seen[row]
    i, j = sympy.symbols("i j", integer=True, positive=True)
    assert is_zero(by_name(formula, {"i": i}) - sympy.Sum(1, (j, 1, i)).doit())


def stable_denominator() -> None:
    # The stated sum over the family s_j, written out over concrete scores, is what the
    # stable softmax divides exp(s_i - m) by: the reference's weights come out.
    formula = stated("stable-softmax-denominator")
    assert getattr(formula.func, "__name__", "") == "sum"
    term, index = formula.args
    scores = [sympy.Rational(3, 2), sympy.Integer(-1), sympy.Integer(2), sympy.Rational(1, 4)]
    m = max(scores)
    denominator = sum(by_name(term, {f"s_{index}": s, "m": m}) for s in scores)
    weights = [sympy.exp(s - m) / denominator for s in scores]
    reference = stable_softmax(np.array([float(s) for s in scores]))
    assert np.allclose([float(w) for w in weights], reference)


DERIVATIONS: dict[str, Callable[[], None]] = {
    "attention-equation": equation,
    "cloze-equation-scores": scores_blank,
    "grad-q": gradient("grad-q", "Q"),
    "grad-k": gradient("grad-k", "K"),
    "grad-weights": gradient("grad-weights", "A"),
    "cloze-grad-v": gradient("cloze-grad-v", "V"),
    "softmax-grad": jacobian("softmax-grad", "all"),
    "jacobian-diagonal": jacobian("jacobian-diagonal", "diagonal"),
    "softmax-offdiagonal": jacobian("softmax-offdiagonal", "off"),
    "cloze-softmax-gradient": jacobian("cloze-softmax-gradient", "all", blank_times_p_i=True),
    "cloze-softmax-definition": softmax_numerator,
    "cloze-equation-scale": scale_blanks,
    "cloze-variance-scaled": scale_blanks,
    "flops-qk": flops,
    "flops-total": flops,
    "flops-qk-general": flops,
    "flops-av": value_flops_and_memory,
    "memory-av": value_flops_and_memory,
    "intensity": intensity,
    "intensity-limit": intensity,
    "intensity-s-once": intensity_s_once,
    "intensity-s-once-limit": intensity_s_once,
    "cloze-intensity-bytes": intensity,
    "causal-keys-seen": causal_keys,
    "stable-softmax-denominator": stable_denominator,
}


def test_every_formula_item_has_a_derivation() -> None:
    formulas = {item.id for item in symbolic_items()}
    covered = set(DERIVATIONS) | set(
        VARIANCE_IDS
    )  # the variance facts: tests/engine/test_bank_facts.py
    assert formulas - covered == set()
    assert covered - formulas == set()  # no derivation for an item that is gone


@pytest.mark.parametrize("item_id", sorted(DERIVATIONS))
def test_the_bank_formula_equals_its_derivation(item_id: str) -> None:
    DERIVATIONS[item_id]()


def test_a_wrong_formula_fails_its_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    # The derivations are not vacuous: the classic slips of the bank fail them.
    import tests.engine.cards.test_bank_15_derivations as here

    slips = {"grad-k": "G Q / sqrt(d_k)", "softmax-grad": "p_i (delta_ij - p_i)"}
    for item_id, wrong in slips.items():
        item = item_15(item_id)
        monkeypatch.setattr(here, "stated", lambda _id, _i=item, _w=wrong: _read(_i, _w))
        with pytest.raises((AssertionError, sympy.ShapeError)):
            DERIVATIONS[item_id]()


def _read(item: object, text: str) -> sympy.Expr:
    return stated_formula(item.model_copy(update={"answer": text}))  # type: ignore[attr-defined]
