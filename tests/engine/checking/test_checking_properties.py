"""Property tests: any text gives a verdict; a polynomial equals itself however it is spelled."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checking import check_expression, check_number, check_shape
from engine.checking.reading.notation import normalise
from engine.errors import AnswerError
from engine.verdict import Verdict

# Hypothesis runs each property over many examples through SymPy: seconds each.
pytestmark = pytest.mark.slow

ALIASES = {"d_k": ["d", "dk", "d_{k}"], "T_q": ["Tq", "n_q"]}
MATH_TEXT = st.text(
    alphabet=st.sampled_from(list("QKVTdk_^*/+-()[]{}., √²ᵀ·×0123456789\\'x")), max_size=40
)


@settings(deadline=None, max_examples=300)
@given(st.one_of(st.text(max_size=60), MATH_TEXT))
def test_any_text_gives_a_verdict(text: str) -> None:
    verdict = check_expression(
        text, "softmax(Q K^T / sqrt(d_k)) V", aliases=ALIASES, positive=["d_k"],
        noncommutative=["Q", "K", "V"],
    )  # fmt: skip
    assert isinstance(verdict, Verdict)
    assert verdict.valid or not verdict.correct


@settings(deadline=None, max_examples=200)
@given(st.one_of(st.text(max_size=60), MATH_TEXT))
def test_any_text_gives_a_number_or_shape_verdict(text: str) -> None:
    assert isinstance(check_number(text, 22.6, abs_tol=0.1, rel_tol=None), Verdict)
    assert isinstance(check_shape(text, "(T_q, d_k)", aliases=ALIASES), Verdict)


@settings(deadline=None, max_examples=300)
@given(st.one_of(st.text(max_size=80), MATH_TEXT))
def test_normalising_raises_only_answer_errors(text: str) -> None:
    with contextlib.suppress(AnswerError):
        normalise(text, symbols={"Q", "K", "d_k", "T"}, aliases=ALIASES, matrices={"Q", "K"})


COEFFICIENTS = st.lists(st.integers(min_value=-9, max_value=9), min_size=1, max_size=5)


def spell(coefficients: list[int], name: str, power: str, times: str) -> str:
    terms = [f"({c}){times}{name}{power}{n}" for n, c in enumerate(coefficients)]
    return " + ".join(reversed(terms))


@settings(deadline=None, max_examples=60)
@given(
    COEFFICIENTS,
    st.sampled_from(["d", "dk", "d_{k}", "dₖ", "d_k"]),
    st.sampled_from(["^", "**"]),
    st.sampled_from(["*", " ", "·", ""]),
)
def test_a_polynomial_in_d_k_equals_itself_in_any_spelling(
    coefficients: list[int], name: str, power: str, times: str
) -> None:
    expected = " + ".join(f"{c}*d_k**{n}" for n, c in enumerate(coefficients))
    answer = spell(coefficients, name, power, times)
    verdict = check_expression(answer, expected, aliases=ALIASES, positive=["d_k"])
    assert verdict.correct, (answer, verdict)


@settings(deadline=None, max_examples=60)
@given(COEFFICIENTS, st.integers(min_value=1, max_value=9))
def test_a_changed_coefficient_is_wrong(coefficients: list[int], change: int) -> None:
    expected = " + ".join(f"{c}*d_k**{n}" for n, c in enumerate(coefficients))
    changed = [coefficients[0] + change, *coefficients[1:]]
    answer = " + ".join(f"{c} d^{n}" for n, c in enumerate(changed))
    assert not check_expression(answer, expected, aliases=ALIASES, positive=["d_k"]).correct


# ── Random expressions built with SymPy, printed the ways learners write them ───────────────

SPELLINGS_OF_D = ["d_k", "d", "dk", "d_{k}"]


@st.composite
def scalar_expressions(draw: st.DrawFn):
    """A random rational expression in d_k and T with small coefficients and a possible root."""
    import sympy

    d, t = sympy.symbols("d_k T")
    atoms = [d, t, sympy.sqrt(d), sympy.Integer(1)]
    terms = []
    for _ in range(draw(st.integers(1, 4))):
        coefficient = draw(st.integers(-6, 6).filter(bool))
        factors = [draw(st.sampled_from(atoms)) ** draw(st.integers(0, 3)) for _ in range(2)]
        terms.append(coefficient * sympy.Mul(*factors))
    numerator = sympy.Add(*terms)
    if draw(st.booleans()):
        denominator = draw(st.sampled_from([t + 1, d + t, 2 * d, t**2 + d]))
        return numerator / denominator
    return numerator


def learner_spellings(expr, order: list[int], d_name: str) -> list[str]:
    """The same expression as a learner might type it: Python, caret, juxtaposition, Unicode,
    LaTeX, expanded, factored, with its terms in another order and d_k spelled `d_name`."""
    import sympy

    python = sympy.sstr(expr)
    caret = python.replace("**", "^")
    juxtaposed = caret.replace("*", " ")
    unicode = caret.replace("*", "·").replace("sqrt(", "√(").replace("-", "−")
    expanded, factored = sympy.sstr(sympy.expand(expr)), sympy.sstr(sympy.factor(expr))
    numerator, denominator = sympy.fraction(sympy.together(expr))
    terms = sympy.Add.make_args(sympy.expand(numerator))
    shuffled = sorted(range(len(terms)), key=lambda i: order[i % len(order)] + i / len(terms))
    reordered = " + ".join(f"({sympy.sstr(terms[i])})" for i in shuffled)
    reordered = f"({reordered})/({sympy.sstr(denominator)})"
    latex = sympy.latex(expr)
    forms = [python, caret, juxtaposed, unicode, expanded, factored, reordered, latex]
    return [form.replace("d_k", d_name) if d_name != "d_{k}" else form for form in forms]


@settings(deadline=None, max_examples=80)
@given(
    scalar_expressions(),
    st.permutations(range(4)),
    st.sampled_from(SPELLINGS_OF_D),
)
def test_a_random_expression_equals_itself_however_it_is_written(expr, order, d_name) -> None:
    import sympy

    expected = sympy.sstr(expr)
    for answer in learner_spellings(expr, list(order), d_name):
        verdict = check_expression(
            answer, expected, aliases=ALIASES, positive=["d_k", "T"], integer=["d_k", "T"]
        )
        assert verdict.correct, (answer, expected, verdict)


@settings(deadline=None, max_examples=60)
@given(scalar_expressions(), st.sampled_from(["+ 1", "* 2", "+ T", "* d_k", "- sqrt(d_k)"]))
def test_a_random_expression_changed_a_little_is_wrong(expr, change: str) -> None:
    import sympy

    expected = sympy.sstr(expr)
    changed = f"({sympy.sstr(sympy.expand(expr))}) {change}"
    verdict = check_expression(
        changed, expected, aliases=ALIASES, positive=["d_k", "T"], integer=["d_k", "T"]
    )
    if sympy.simplify(sympy.sympify(changed, locals={"d_k": sympy.Symbol("d_k")}) - expr) != 0:
        assert verdict.valid and not verdict.correct, (changed, expected, verdict)


MATRICES = ["Q", "K", "V"]


@settings(deadline=None, max_examples=60)
@given(
    st.lists(st.sampled_from(MATRICES), min_size=2, max_size=4),
    st.sampled_from(["^T", ".T", "ᵀ", "^{T}", "^\\top"]),
    st.sampled_from([" ", "*", "@", "·", ""]),
)
def test_the_transpose_of_a_product_reverses_it(word: list[str], mark: str, times: str) -> None:
    expected = "(" + " ".join(word) + ")^T"
    answer = times.join(f"{m}{mark}" for m in reversed(word))
    verdict = check_expression(answer, expected, noncommutative=MATRICES)
    assert verdict.correct, (answer, verdict)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.sampled_from(MATRICES), min_size=2, max_size=4), st.data())
def test_matrix_products_do_not_commute(word: list[str], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(word) - 2))
    swapped = [*word[:i], word[i + 1], word[i], *word[i + 2 :]]
    if swapped != word:
        verdict = check_expression(" ".join(swapped), " ".join(word), noncommutative=MATRICES)
        assert verdict.valid and not verdict.correct


# ── The reader raises nothing but its own errors, whatever it is given ─────────────────────

ANY_TEXT = st.one_of(
    st.text(max_size=80),
    MATH_TEXT,
    st.text(alphabet=st.sampled_from(list("[](),; 0123456789.-e√^*/\x00\x1b\u202e\u200b")),
            max_size=60),
)  # fmt: skip


@settings(deadline=None, max_examples=300)
@given(ANY_TEXT)
def test_vectors_raise_only_answer_errors(text: str) -> None:
    from engine.checking import check_vector, parse_vector

    with contextlib.suppress(AnswerError):
        parse_vector(text)
    verdict = check_vector(text, [[0.5, 0.5], [0.25, 0.75]], abs_tol=0.01)
    assert isinstance(verdict, Verdict) and (verdict.valid or not verdict.correct)


@settings(deadline=None, max_examples=200)
@given(ANY_TEXT)
def test_kronecker_and_ranges_never_break_the_reader(text: str) -> None:
    verdict = check_expression(
        text, "p_i (delta_ij - p_j)", aliases={"delta_ij": ["δ_ij"]},
        ranges={"p_i": (0, 1), "p_j": (0, 1)},
    )  # fmt: skip
    assert isinstance(verdict, Verdict)
