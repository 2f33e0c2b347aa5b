"""The safe reader: the whitelist, the limits, and SymPy built node by node."""

import sys

import pytest

from engine.checking.reading.safe_ast import Vocabulary, check_size, parse_tree
from engine.checking.reading.to_sympy import build
from engine.errors import AnswerError

VOCABULARY = Vocabulary(
    symbols=frozenset({"x", "d_k", "Q", "K"}),
    positive=frozenset({"d_k"}),
    matrices=frozenset({"Q", "K"}),
)


def read(text: str, *, allow_tuple: bool = False):
    return build(parse_tree(text, VOCABULARY, allow_tuple=allow_tuple), VOCABULARY)


@pytest.mark.slow
def test_importing_the_checking_package_does_not_load_sympy() -> None:
    import subprocess

    code = "import sys, engine.checking; print('sympy' in sys.modules, 'numpy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]


def test_decimals_become_exact_fractions() -> None:
    import sympy

    assert read("d_k**0.5") == sympy.sqrt(sympy.Symbol("d_k"))
    assert read("0.1") == sympy.Rational(1, 10)


def test_matrix_symbols_do_not_commute() -> None:
    expr = read("d_k * Q * K")
    assert not expr.is_commutative
    assert read("Q*K") != read("K*Q")
    assert read("d_k*Q") == read("Q*d_k")


def test_transposes_follow_the_algebra() -> None:
    assert read("transpose(Q*K)") == read("transpose(K)*transpose(Q)")
    assert read("transpose(transpose(Q))") == read("Q")
    assert read("transpose(d_k)") == read("d_k")


def test_tuples_only_where_asked() -> None:
    assert len(read("(x, d_k)", allow_tuple=True)) == 2
    with pytest.raises(AnswerError, match="list of values"):
        read("(x, d_k)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("y", "`y` is not a known name"),
        ("sqrt", "is a function"),
        ("sqrt(x, x)", "takes 1 argument"),
        ("foo(x)", "`foo` is not a known function"),
        ("x.real", "attributes"),
        ("x[0]", "indexing"),
        ("lambda: x", "`lambda`"),
        ("'x'", "quotes"),
        ("True", "`True` is not a known name"),
        ("1j", "complex"),
        ("10000000000000", "below 10**12"),
        ("x**101", "exponent too large"),
        ("x**(50*3)", "exponent too large"),
        ("2**2**2**2", "powers of powers"),
        ("(x**20)**30", "degree"),
        ("x < 1", "comparisons"),
        ("x +", "not a complete expression"),
        ("", "empty"),
        ("exp(x=1)", "keyword"),
    ],
)
def test_refusals_say_what_to_change(text: str, message: str) -> None:
    with pytest.raises(AnswerError, match="could not read this") as error:
        read(text)
    assert message in str(error.value)


def test_size_is_checked_before_parsing() -> None:
    with pytest.raises(AnswerError, match="characters"):
        check_size("x" * 401)
    with pytest.raises(AnswerError, match="nested"):
        check_size("[" * 31)
    check_size("(" * 30 + ")" * 30)


def test_node_count_is_bounded() -> None:
    with pytest.raises(AnswerError, match="too long"):
        parse_tree("+".join(["x"] * 150), VOCABULARY)


@pytest.mark.parametrize(
    "text", ["x**(sqrt(10)**12)", "x**exp(5)", "x**(20*pi*e)", "x**max(1, 200)", "exp(1000)"]
)
def test_exponents_computed_by_functions_are_bounded_too(text: str) -> None:
    with pytest.raises(AnswerError, match="too large"):
        read(text)


def test_a_matrix_cannot_be_an_exponent() -> None:
    with pytest.raises(AnswerError, match="matrix cannot be an exponent"):
        read("1**(Q*K)")


def test_coefficients_that_would_grow_huge_are_refused() -> None:
    with pytest.raises(AnswerError, match="grow too large"):
        read("(9910**12 * x)**99")


@pytest.mark.parametrize(
    "text", ["0.5**(10**12 - 1**x)", "exp((10**12 - 1**x)*log(2))", "(x*10**11)**(99 + 0*x)"]
)
def test_exponents_that_sympy_simplifies_into_numbers_are_bounded_too(text: str) -> None:
    # 1**x and 0*x become numbers only while SymPy builds the expression.
    with pytest.raises(AnswerError, match="too large"):
        read(text)
