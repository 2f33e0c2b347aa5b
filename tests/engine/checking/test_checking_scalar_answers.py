"""Scalar formulas from set 15: every spelling docs/spec.md lists is judged by meaning."""

import pytest

from engine.checking import check_expression
from engine.errors import BankError

D_ALIASES = {"d_k": ["d", "dk", "d_{k}"]}
DELTA_ALIASES = {"delta_ij": ["δ_ij", "KroneckerDelta(i, j)", "KroneckerDelta(i,j)"]}


@pytest.mark.parametrize("answer", ["d_k", "d", "dk", "d_{k}", "dₖ", "1*d_k", "(d_k)"])
def test_var_dot_accepts_every_spelling_of_d_k(answer: str) -> None:
    assert check_expression(answer, "d_k", aliases=D_ALIASES, positive=["d_k"]).correct


@pytest.mark.parametrize("answer", ["d_k**2", "sqrt(d_k)", "1", "d_k/2"])
def test_var_dot_rejects_other_values(answer: str) -> None:
    verdict = check_expression(answer, "d_k", aliases=D_ALIASES, positive=["d_k"])
    assert verdict.valid and not verdict.correct


@pytest.mark.parametrize(
    "answer",
    ["sqrt(d_k)", "√d_k", "√(d_k)", "d_k**0.5", "d_k^(1/2)", "\\sqrt{d_k}", "√d", "sqrt(dk)",
     "d_k^0.5", "d_k/sqrt(d_k)", "\\sqrt{d_{k}}", "(d_k)^{1/2}"],
)  # fmt: skip
def test_std_dot_accepts_every_spelling_of_a_root(answer: str) -> None:
    assert check_expression(answer, "sqrt(d_k)", aliases=D_ALIASES, positive=["d_k"]).correct


def test_std_dot_rejects_the_variance() -> None:
    assert not check_expression("d_k", "sqrt(d_k)", aliases=D_ALIASES, positive=["d_k"]).correct


@pytest.mark.parametrize("answer", ["0", "0.0", "1-1", "0*d_k"])
def test_mean_dot_is_zero(answer: str) -> None:
    assert check_expression(answer, "0", aliases=D_ALIASES).correct


@pytest.mark.parametrize("answer", ["1", "d_k/d_k", "sqrt(d_k)^2/d_k", "1.0"])
def test_var_scaled_is_one(answer: str) -> None:
    assert check_expression(answer, "1", aliases=D_ALIASES, positive=["d_k"]).correct


@pytest.mark.parametrize(
    "answer",
    ["p_i (delta_ij - p_j)", "p_i*delta_ij - p_i*p_j", "p_i(δ_ij − p_j)",
     "p_i (KroneckerDelta(i, j) - p_j)", "p_i*KroneckerDelta(i,j) - p_j*p_i",
     "p_i(\\delta_{ij} - p_j)", "pᵢ(δᵢⱼ - pⱼ)", "-p_i p_j + p_i δ_ij"],
)  # fmt: skip
def test_softmax_grad_accepts_every_spelling(answer: str) -> None:
    verdict = check_expression(answer, "p_i (delta_ij - p_j)", aliases=DELTA_ALIASES)
    assert verdict.correct, verdict


@pytest.mark.parametrize(
    "answer", ["p_i (1 - p_j)", "p_i delta_ij - p_j", "-p_i p_j", "p_i (1 - p_i)", "p_i p_j"]
)
def test_softmax_grad_rejects_classic_slips(answer: str) -> None:
    verdict = check_expression(answer, "p_i (delta_ij - p_j)", aliases=DELTA_ALIASES)
    assert verdict.valid and not verdict.correct


@pytest.mark.parametrize(
    "answer",
    ["p_j(delta_ij - p_i)", "p_i delta_ij^2 - p_i p_j", "(p_i + p_j) delta_ij/2 - p_i p_j",
     "delta_ij p_i (1 - p_i) - (1 - delta_ij) p_i p_j"],
)  # fmt: skip
def test_delta_ij_is_the_kronecker_delta(answer: str) -> None:
    # δ_ij is 0 or 1, and 1 only where i = j, so that δ_ij p_j = δ_ij p_i.
    verdict = check_expression(answer, "p_i (delta_ij - p_j)", aliases=DELTA_ALIASES)
    assert verdict.correct, verdict


def test_a_listed_mistake_equal_in_value_is_matched_by_its_form() -> None:
    mistakes = [("p_j (delta_ij - p_i)", "write p_i in front")]
    expected = "p_i (delta_ij - p_j)"
    for answer in ["p_j(δ_ij − p_i)", "p_j delta_ij - p_i p_j"]:
        verdict = check_expression(answer, expected, aliases=DELTA_ALIASES, mistakes=mistakes)
        assert not verdict.correct and verdict.feedback == "write p_i in front"
    verdict = check_expression(
        "p_i delta_ij^2 - p_i p_j", expected, aliases=DELTA_ALIASES, mistakes=mistakes
    )
    assert verdict.correct


def test_without_kronecker_deltas_delta_is_an_ordinary_symbol() -> None:
    # `delta` alone names no indices, so δ² = δ does not hold for it.
    assert not check_expression("delta^2", "delta").correct


@pytest.mark.parametrize(
    "answer", ["4 T^2 d_k", "4*T**2*d", "4T²d_k", "4 T T d_k", "2*T^2*d_k + 2 T^2 d", "4·T²·dₖ"]
)
def test_flops_total_accepts_equivalent_forms(answer: str) -> None:
    verdict = check_expression(answer, "4 T^2 d_k", aliases=D_ALIASES, positive=["T", "d_k"])
    assert verdict.correct, verdict


@pytest.mark.parametrize("answer", ["2 T^2 d_k", "4 T d_k", "4 T^2 d_k^2"])
def test_flops_total_rejects_wrong_counts(answer: str) -> None:
    verdict = check_expression(answer, "4 T^2 d_k", aliases=D_ALIASES, positive=["T", "d_k"])
    assert verdict.valid and not verdict.correct


@pytest.mark.parametrize(
    "answer",
    ["T d_k / (4 (d_k + T))", "T*d/(4*d + 4*T)", "\\frac{T d_k}{4(d_k + T)}",
     "T dk / (4T + 4dk)", "(T d_k)/(4 d_k + 4 T)", "1/(4/T + 4/d_k)", "T d_k (4 (d_k + T))^-1"],
)  # fmt: skip
def test_intensity_accepts_equivalent_forms(answer: str) -> None:
    expected = "T d_k / (4 (d_k + T))"
    verdict = check_expression(answer, expected, aliases=D_ALIASES, positive=["T", "d_k"])
    assert verdict.correct, verdict


@pytest.mark.parametrize(
    "answer", ["T d_k / (2 (d_k + T))", "T d_k / (4 d_k T)", "T d_k / 4 (d_k + T)"]
)
def test_intensity_rejects_wrong_forms(answer: str) -> None:
    expected = "T d_k / (4 (d_k + T))"
    verdict = check_expression(answer, expected, aliases=D_ALIASES, positive=["T", "d_k"])
    assert verdict.valid and not verdict.correct


def test_t_is_a_symbol_when_declared_and_a_transpose_otherwise() -> None:
    assert check_expression("d_k^T", "d_k**T", positive=["T", "d_k"]).correct


def test_integer_symbols_are_sampled_as_whole_numbers() -> None:
    # (-1)**(2n) is 1 only for whole n: the numeric test must respect the declared domain.
    assert not check_expression("(-1)^(2n)", "1").correct
    assert check_expression("(-1)^(2n)", "1", integer=["n"]).correct


def test_an_unreadable_bank_answer_is_an_author_error() -> None:
    with pytest.raises(BankError, match="cannot be read"):
        check_expression("d_k", "d_k +* 2", aliases=D_ALIASES)


def test_an_unreadable_mistake_is_an_author_error() -> None:
    with pytest.raises(BankError):
        check_expression("d", "d_k", aliases=D_ALIASES, mistakes=[("__import__", "no")])


def test_correct_answers_score_one_and_wrong_ones_zero() -> None:
    right = check_expression("dk", "d_k", aliases=D_ALIASES)
    wrong = check_expression("2dk", "d_k", aliases=D_ALIASES)
    assert (right.score, wrong.score) == (1.0, 0.0)


def test_opaque_functions_compare_by_their_arguments() -> None:
    assert check_expression("Var(2 d)", "Var(2*d_k)", aliases=D_ALIASES).correct
    assert not check_expression("Var(E(d_k))", "E(Var(d_k))", aliases=D_ALIASES).correct
    assert not check_expression("Var(d_k) * 4", "Var(2*d_k)", aliases=D_ALIASES).correct


def test_deeply_nested_functions_get_a_verdict() -> None:
    # exp(exp(...)) overflows at every sample point, and simplify() would search for minutes:
    # such answers are judged "not shown equal" instead.
    nested = "exp(" * 29 + "d_k" + ")" * 29
    verdict = check_expression(nested, "Var(d_k)", aliases=D_ALIASES, positive=["d_k"])
    assert verdict.valid and not verdict.correct
    verdict = check_expression("exp(exp(exp(100)))", "Var(d_k)", aliases=D_ALIASES)
    assert not verdict.correct and "too large" in verdict.feedback


def test_simplify_decides_when_no_sample_point_is_defined(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.checking.equivalence.numeric as numeric

    monkeypatch.setattr(numeric, "equivalent_at_random_points", lambda *args, **kwargs: None)
    assert check_expression("(d_k^2 - 1)/(d_k - 1)", "d_k + 1", aliases=D_ALIASES).correct
    assert not check_expression("(d_k^2 - 1)/(d_k + 1)", "d_k + 1", aliases=D_ALIASES).correct
    # Outside small rational expressions simplify() is not trusted to finish: not shown equal.
    verdict = check_expression("log(d_k^2)", "2 log(d_k)", aliases=D_ALIASES, positive=["d_k"])
    assert verdict.valid and not verdict.correct


def test_very_long_interpretations_are_shortened() -> None:
    answer = "*".join(f"(d_k + {i})" for i in range(60))
    verdict = check_expression(answer, "d_k", aliases=D_ALIASES)
    assert len(verdict.interpreted_as) <= 310


def test_declared_domains_decide_equality() -> None:
    # sqrt(d_k^2) is d_k only for positive d_k.
    assert check_expression("sqrt(d_k^2)", "d_k", aliases=D_ALIASES, positive=["d_k"]).correct
    assert not check_expression("sqrt(d_k^2)", "d_k", aliases=D_ALIASES).correct
