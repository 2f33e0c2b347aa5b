"""Notation: learner spellings become one plain expression language."""

import pytest

from engine.checking.reading.notation import names_used, normalise, tokenise
from engine.errors import AnswerError

SYMBOLS = {"Q", "K", "V", "d_k", "T", "p_i", "p_j", "delta_ij", "a", "b"}
ALIASES = {"d_k": ["d", "dk", "d_{k}"], "delta_ij": ["δ_ij", "KroneckerDelta(i, j)"]}
MATRICES = {"Q", "K", "V"}


def plain(text: str, symbols: set[str] = SYMBOLS) -> str:
    return normalise(text, symbols=symbols, aliases=ALIASES, matrices=MATRICES).replace(" ", "")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("QK^T", "Q*transpose(K)"),
        ("QKᵀ", "Q*transpose(K)"),
        ("Q@K.T", "Q@transpose(K)"),
        ("Q^TK", "transpose(Q)*K"),
        ("QK^TV", "Q*transpose(K)*V"),
        ("(QK)^T", "transpose((Q*K))"),
        ("softmax(Q)V", "softmax(Q)*V"),
        ("2d_k", "2*d_k"),
        ("Td_k", "T*d_k"),
        ("T d_k", "T*d_k"),
        ("(a)(b)", "(a)*(b)"),
        ("p_i(delta_ij - p_j)", "p_i*(delta_ij-p_j)"),
        ("p_i(δ_ij − p_j)", "p_i*(delta_ij-p_j)"),
        ("KroneckerDelta(i, j)", "delta_ij"),
        ("\\delta_{ij}", "delta_ij"),
        ("√d_k", "sqrt(d_k)"),
        ("√(d_k)", "sqrt(d_k)"),
        ("√dₖ", "sqrt(d_k)"),
        ("sqrt d", "sqrt(d_k)"),
        ("\\sqrt{d_{k}}", "sqrt(d_k)"),
        ("\\frac{a}{b}", "((a)/(b))"),
        ("\\frac12", "((1)/(2))"),
        ("\\left(a\\right)\\cdot b", "(a)*b"),
        ("a \\times b", "a*b"),
        ("a^{2}", "a**(2)"),
        ("T²", "T**(2)"),
        ("a³", "a**(3)"),
        ("a⁻¹", "a**(-1)"),
        ("a × b · T", "a*b*T"),
        ("dk", "d_k"),
        ("d_{k}", "d_k"),
        ("Q^{T}", "transpose(Q)"),
        ("Q^\\top", "transpose(Q)"),
        ("1e-3", "1e-3"),
        ("2π", "2*pi"),
    ],
)
def test_spellings_are_rewritten(text: str, expected: str) -> None:
    assert plain(text) == expected


def test_t_after_a_caret_is_a_transpose_unless_t_is_a_symbol() -> None:
    assert plain("x^T", {"x"}) == "transpose(x)"
    assert plain("x^T", {"x", "T"}) == "x**T"
    assert plain("K^T", {"K", "T"}) == "transpose(K)"  # K is a matrix


def test_function_names_are_not_multiplied_with_their_brackets() -> None:
    assert plain("exp(a)") == "exp(a)"


def test_unknown_names_keep_their_call_shape() -> None:
    assert plain("open(a)") == "open(a)"


def test_unknown_latex_commands_are_refused() -> None:
    with pytest.raises(AnswerError, match=r"`\\input`"):
        normalise("\\input{x}")


def test_unclosed_latex_braces_are_refused() -> None:
    with pytest.raises(AnswerError):
        normalise("\\frac{a}{b")


def test_names_used_finds_undeclared_symbols() -> None:
    assert names_used("4 T^2 d_k") == {"T", "d_k"}
    assert names_used("softmax(Q K^T / sqrt(d_k)) V") == {"Q", "K", "V", "d_k"}
    assert names_used("QK", symbols={"Q", "K"}) == {"Q", "K"}


def test_tokenise_remembers_a_text_but_gives_each_caller_its_own_list() -> None:
    # Splitting is remembered per text (a question's spellings are split for every answer); a
    # caller that edits its list must not change what the next caller gets.
    first = tokenise("softmax(QKᵀ/√d_k)V")
    kept = list(first)
    first.clear()
    assert kept and tokenise("softmax(QKᵀ/√d_k)V") == kept
