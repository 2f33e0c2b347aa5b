"""Property tests: any text gives a verdict; a polynomial equals itself however it is spelled."""

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checking import check_expression, check_number, check_shape
from engine.checking.notation import normalise
from engine.errors import AnswerError
from engine.verdict import Verdict

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
