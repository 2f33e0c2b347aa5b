"""Hostile input is refused with a clear message and never executed."""

from pathlib import Path

import pytest

from engine.checking import check_expression, check_number, check_shape, evaluate_number
from engine.errors import AnswerError

EXPECTED = "softmax(Q K^T / sqrt(d_k)) V"
OPTIONS = {"aliases": {"d_k": ["d", "dk"]}, "positive": ["d_k"], "noncommutative": ["Q", "K", "V"]}

HOSTILE = [
    "__import__('os').system('echo hi')",
    "().__class__.__bases__",
    "x.__class__",
    "9**9**9**9",
    "10**100000",
    "(" * 5000 + "x" + ")" * 5000,
    "a" * 100_000,
    "lambda: 1",
    "[x for x in y]",
    "open('f')",
    "exec('1')",
    "'a string'",
    'b"bytes"',
    "1j",
    "Q[0]",
    "d_k if d_k else 0",
    "softmax(x=Q)",
    "sqrt(*Q)",
    "{1: 2}",
    "(2**99)**(2**99)",
    "((d_k**50)**50)",
    "2**2**2**2",
    "1e400",
    "10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12"
    " * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12"
    " * 10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12",
    "\\input{/etc/passwd}",
    "+".join(["d_k"] * 120),
    "\x00",
]


@pytest.fixture(scope="module")
def warmed_up() -> None:
    """Everything a check needs is imported before `nothing_runs` sets its traps."""
    check_expression(EXPECTED, EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    check_number("sqrt(2)", 1.4, abs_tol=0.1, rel_tol=None)
    check_shape("(T_q, 2 T_k)", "(T_q, T_k)")


@pytest.mark.usefixtures("nothing_runs")
@pytest.mark.parametrize("answer", HOSTILE, ids=lambda text: repr(text[:30]))
def test_hostile_answers_are_invalid_with_a_message(answer: str) -> None:
    verdict = check_expression(answer, EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert not verdict.correct
    assert not verdict.valid
    assert verdict.feedback.startswith("could not read this: ")


@pytest.mark.usefixtures("nothing_runs")
@pytest.mark.parametrize("answer", HOSTILE, ids=lambda text: repr(text[:30]))
def test_hostile_numbers_and_shapes_are_refused(answer: str) -> None:
    assert not check_number(answer, 1.0, abs_tol=0.1, rel_tol=None).valid
    with pytest.raises(AnswerError):
        evaluate_number(answer)
    verdict = check_shape(answer, "(T_q, T_k)")
    assert not verdict.correct


def test_import_and_system_calls_are_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    attempts = [
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w')",
        f"exec(\"open('{marker}', 'w')\")",
        f"eval(\"open('{marker}', 'w')\")",
        f"[open('{marker}', 'w') for _ in [1]]",
    ]
    for attempt in attempts:
        assert not check_expression(attempt, EXPECTED, **OPTIONS).valid  # type: ignore[arg-type]
        assert not check_shape(attempt, "(T_q, T_k)").correct
        assert not check_number(attempt, 1.0, abs_tol=0.1, rel_tol=None).valid
    assert not marker.exists()


def test_dunder_names_are_named_in_the_message() -> None:
    verdict = check_expression("__import__('os').system('echo hi')", EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert verdict.feedback == "could not read this: `__import__` is not a known name"


def test_power_towers_are_refused_before_computing() -> None:
    verdict = check_expression("9**9**9**9", EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert "power" in verdict.feedback or "exponent" in verdict.feedback


def test_huge_exponents_say_how_to_fix_them() -> None:
    verdict = check_expression("10**100000", EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert verdict.feedback == "could not read this: exponent too large: keep exponents below 100"


def test_deep_brackets_are_refused_by_counting() -> None:
    verdict = check_expression("(" * 5000 + "x" + ")" * 5000, EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert "characters long" in verdict.feedback
    verdict = check_expression("(" * 100 + "d" + ")" * 100, EXPECTED, **OPTIONS)  # type: ignore[arg-type]
    assert "nested too deeply" in verdict.feedback
