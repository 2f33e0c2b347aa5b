"""Hostile answers to the real items of set 15: a quick, clean verdict and no side effect.

Every answer below goes through the same `grade` a session uses, for an expression, a number, a
shape and a vector. Each must come back as a Verdict (unreadable with a message, or an ordinary
wrong verdict), never an exception, and must leave no trace: no evaluator, shell, process or
file is reached. Nothing here measures time; what keeps these fast is that the reader refuses
them by counting before computing, which the other hostile tests pin down message by message.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.checking import check_vector
from engine.verdict import Verdict
from tests.conftest import warm_checker

FACTORIALS = [
    "1000!", "d_k!", "(10**6)!", "factorial(10**6)", "factorial(1000)", "gamma(10**6)",
    "gamma(d_k)", "Gamma(1000)", "\\Gamma(10^6)", "loggamma(10**100)", "d_k!!",
]  # fmt: skip
CONTROL_CHARACTERS = [
    "\x00", "d_k\x00", "\x1b[2J", "d_k\x1b[2J", "\x1b]0;pwned\x07", "\r", "sqrt(d_k)\r",
    "\u202ed_k", "sqrt(d_k)\u202e", "\u2066d_k\u2069", "\x7f", "\ud800", "\x08\x08\x08d_k",
]  # fmt: skip
LARGE = ["d" * 100_000, "1" * 100_000, "(" * 50_000 + ")" * 50_000, "d_k+" * 25_000 + "1",
         "[" + "0.5, " * 20_000 + "0.5]", "\u200b" * 100_000]  # fmt: skip
INJECTION = [
    "__import__('os').system('touch {marker}')", "exec(\"open('{marker}', 'w')\")",
    "eval('1')", "open('{marker}', 'w').write('x')", "compile('1', 'f', 'eval')",
    "globals()", "locals()['x']", "breakpoint()", "input()", "help()",
    "lambda: open('{marker}', 'w')", "[open('{marker}', 'w') for _ in [1]]",
    "d_k; import os", "d_k\nimport os", "\\input{{/etc/passwd}}", "\\write18{{touch {marker}}}",
    "$(touch {marker})", "`touch {marker}`", "d_k' or '1'='1",
]  # fmt: skip
ATTRIBUTE_CHAINS = [
    "().__class__.__bases__[0].__subclasses__()", "d_k.__class__.__mro__",
    "Q.__dict__", "sqrt.__globals__", "softmax.__code__.co_code", "d_k.real.imag.conjugate()",
    "Q.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T.T",
    "getattr(d_k, '__class__')", "type(d_k)", "vars()",
]  # fmt: skip
HUGE_POWERS = [
    "9**9**9**9", "2**10**10", "d_k**(10**10)", "10**300*10**300", "(2**99)**(2**99)",
    "d_k^d_k^d_k^d_k", "exp(10**6)", "exp(exp(exp(exp(10))))", "Q^(10**12)", "2^2^2^2^2",
    "(d_k**50)**50", "1e308*10", "10**12 * 10**12 * 10**12 * 10**12 * 10**12 * 10**12",
    "softmax(Q)^99", "√(10**10**10)", "\\frac{1}{0}", "0^(-1)", "log(0)",
]  # fmt: skip
DEEP = [
    "(" * 100 + "d_k" + ")" * 100, "sqrt(" * 60 + "d" + ")" * 60, "-" * 300 + "d_k",
    "[" * 40 + "1" + "]" * 40, "softmax(" * 40 + "Q" + ")" * 40, "d_k" + "**2" * 40,
    "E(" * 29 + "d_k" + ")" * 29, "+".join(["d_k"] * 300), "*".join(["Q"] * 150),
]  # fmt: skip
HOSTILE = (
    FACTORIALS + CONTROL_CHARACTERS + LARGE + INJECTION + ATTRIBUTE_CHAINS + HUGE_POWERS + DEEP
)
ITEMS = ["attention-equation", "var-dot", "softmax-grad", "std-512", "shape-scores"]


@pytest.fixture(scope="module")
def set_15(tmp_path_factory: pytest.TempPathFactory) -> QuestionSet:
    return open_set("15", tmp_path_factory.mktemp("store"))


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "ran"


@pytest.fixture(scope="module")
def warmed_up(set_15: QuestionSet) -> None:
    """Importing a module compiles its source: import everything grading needs first."""
    for item_id in ITEMS:
        item = set_15.item(item_id)
        assert item is not None
        for answer in (item.answer_text(), "1", "(1, 2)", "x", "1 +"):
            in_process(item)(answer)
    check_vector("[sqrt(2), 1]", [1.0, 2.0])


def in_process(item: object) -> Callable[[str], Verdict]:
    """The item's grading logic run in this process, where the traps can see it.

    A session's `grade` may hand the answer to a checking worker process; `grade_in_process` is
    the same logic without the hand-over.
    """
    return getattr(item, "grade_in_process", getattr(item, "grade"))  # noqa: B009


def assert_clean(verdict: object) -> None:
    assert isinstance(verdict, Verdict)
    assert not verdict.correct
    if not verdict.valid:
        assert verdict.feedback.startswith("could not read this: "), verdict
        assert len(verdict.feedback) < 300


@pytest.mark.parametrize("item_id", ITEMS)
@pytest.mark.parametrize("template", HOSTILE, ids=lambda text: repr(text[:24]))
def test_a_hostile_answer_gets_a_clean_verdict_and_runs_nothing(
    set_15: QuestionSet, nothing_runs: list[str], marker: Path, item_id: str, template: str
) -> None:
    answer = template.replace("{marker}", str(marker)) if "{marker}" in template else template
    item = set_15.item(item_id)
    assert item is not None
    assert_clean(in_process(item)(answer))
    assert nothing_runs == []
    assert not marker.exists()


@pytest.mark.parametrize("template", HOSTILE, ids=lambda text: repr(text[:24]))
def test_a_hostile_answer_to_a_session_leaves_no_trace(
    set_15: QuestionSet, marker: Path, template: str
) -> None:
    # The path a session takes (possibly through the checking worker): a clean verdict, no file.
    answer = template.replace("{marker}", str(marker)) if "{marker}" in template else template
    for item_id in ("attention-equation", "std-512", "shape-scores"):
        item = set_15.item(item_id)
        assert item is not None
        assert_clean(warm_checker().grade(item, answer))
    assert not marker.exists()


@pytest.mark.parametrize("template", HOSTILE, ids=lambda text: repr(text[:24]))
def test_a_hostile_vector_gets_a_clean_verdict_and_runs_nothing(
    nothing_runs: list[str], marker: Path, template: str
) -> None:
    answer = template.replace("{marker}", str(marker)) if "{marker}" in template else template
    verdict = check_vector(answer, [0.5, 0.5], abs_tol=0.01)
    assert not verdict.correct
    assert nothing_runs == [] and not marker.exists()


@pytest.mark.parametrize("answer", [*CONTROL_CHARACTERS[:-3], "\x1b[2J" * 3])
def test_feedback_never_echoes_a_control_character(set_15: QuestionSet, answer: str) -> None:
    for item_id in ITEMS:
        item = set_15.item(item_id)
        assert item is not None
        verdict = warm_checker().grade(item, answer)
        shown = verdict.feedback + verdict.interpreted_as
        assert not any(unicodedata.category(c) in {"Cc", "Cf", "Cs"} for c in shown), verdict


@pytest.mark.parametrize(
    ("answer", "message"),
    [("1000!", "the `!` at the end"), ("factorial(10**6)", "too large"),
     ("(10**6)! - 1", "too large"), ("factorial(171)", "too large"),
     ("gamma(10**6)", "`gamma` is not a known function"), ("\x1b[2J", "control character U+001B"),
     ("\u202ed_k", "U+202E"), ("d" * 100_000, "100000 characters long"),
     ("d_k.__class__", "attributes such as `.__class__` are not allowed"),
     ("2**10**10", "exponent too large"), ("(" * 100 + "d" + ")" * 100, "nested too deeply")],
)  # fmt: skip
def test_hostile_answers_are_told_what_is_wrong(
    set_15: QuestionSet, answer: str, message: str
) -> None:
    item = set_15.item("var-dot")
    assert item is not None
    verdict = warm_checker().grade(item, answer)
    assert not verdict.valid and message in verdict.feedback, verdict


def test_invisible_characters_from_copy_and_paste_are_ignored(set_15: QuestionSet) -> None:
    item = set_15.item("std-dot")
    assert item is not None
    assert warm_checker().grade(item, "\ufeff√\u200bd_k\u00ad").correct
