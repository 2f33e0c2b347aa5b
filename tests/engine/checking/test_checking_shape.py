"""Shapes: every spelling of a tuple, canonical dimension names, partial credit, swaps."""

import pytest

from engine.checking import check_shape, parse_shape
from engine.errors import AnswerError, BankError

ALIASES = {"T_q": ["Tq", "n_q"], "T_k": ["Tk", "n_k"], "d_v": ["dv"], "d_k": ["d", "dk"]}


@pytest.mark.parametrize(
    "text",
    ["(T_q, T_k)", "[Tq, Tk]", "T_q x T_k", "T_q×T_k", "T_q by T_k", "(n_q, n_k)",
     "T_q \\times T_k", "(T_{q}, T_{k})", "Tq * Tk", "(T_q,T_k)"],
)  # fmt: skip
def test_shape_spellings_read_the_same(text: str) -> None:
    assert parse_shape(text, aliases=ALIASES) == ("T_q", "T_k")


@pytest.mark.parametrize(
    ("text", "shape"),
    [("(3, 2)", ("3", "2")), ("3x2", ("3", "2")), ("3 × 2", ("3", "2")), ("(T_q,)", ("T_q",)),
     ("(T_q, 2d_k)", ("T_q", "2*d_k")), ("(T_q, d_v)", ("T_q", "d_v"))],
)  # fmt: skip
def test_numbers_and_computed_dimensions_are_read(text: str, shape: tuple[str, ...]) -> None:
    assert parse_shape(text, aliases=ALIASES) == shape


@pytest.mark.parametrize("answer", ["(T_q, T_k)", "[Tq, Tk]", "T_q x T_k", "T_q×T_k"])
def test_shape_scores_accepts_every_spelling(answer: str) -> None:
    verdict = check_shape(answer, "(T_q, T_k)", aliases=ALIASES)
    assert verdict.correct and verdict.score == 1.0
    assert verdict.interpreted_as == "(T_q, T_k)"


def test_swapped_dimensions_are_named_as_swapped() -> None:
    verdict = check_shape("(T_k, T_q)", "(T_q, T_k)", aliases=ALIASES)
    assert not verdict.correct
    assert "swapped" in verdict.feedback
    assert verdict.score == 0.0


def test_one_wrong_dimension_gets_half_credit_and_is_named() -> None:
    verdict = check_shape("(T_q, d_k)", "(T_q, d_v)", aliases=ALIASES)
    assert verdict.score == 0.5
    assert verdict.feedback == "the first dimension is right; the second should not be d_k"


def test_a_wrong_number_of_dimensions_scores_zero() -> None:
    verdict = check_shape("(T_q, T_k, d_k)", "(T_q, T_k)", aliases=ALIASES)
    assert verdict.score == 0.0
    assert "2 dimensions, not 3" in verdict.feedback


@pytest.mark.parametrize("text", ["(T_q, )x", "(,)", "__import__('os')", "(" * 40 + ")" * 40])
def test_unreadable_shapes_raise_answer_errors(text: str) -> None:
    with pytest.raises(AnswerError):
        parse_shape(text, aliases=ALIASES)


def test_an_unreadable_shape_is_an_invalid_verdict() -> None:
    verdict = check_shape("(T_q,, T_k)", "(T_q, T_k)", aliases=ALIASES)
    assert not verdict.valid


def test_an_unreadable_expected_shape_is_an_author_error() -> None:
    with pytest.raises(BankError):
        check_shape("(T_q, T_k)", "(T_q,, T_k)", aliases=ALIASES)
