"""Unreadable and hostile derivation steps get a clear message; nothing typed is ever executed."""

import builtins
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checking.derivation import Assumptions, StepVerdict, check_step
from engine.checking.derivation import check as derivation_check
from engine.checking.derivation.reader import StepReader
from engine.errors import BankError
from tests.engine.checking.step_checkers import both_step_checkers  # noqa: F401  (the fixture)

# Every test runs twice: in-process, and through the checking worker as the drills do.
pytestmark = pytest.mark.usefixtures("both_step_checkers")

SCORES = Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk")})
SOFTMAX = Assumptions(indices=("i", "j"), symbols=("s_i", "m"))

HOSTILE = [
    "__import__('os').system('echo hi')",
    "E[().__class__.__bases__]",
    "= Var(q·k).__class__",
    "E[q·k] = exec('1')",
    "lambda: 1",
    "Var((q·k)^100)",
    "E[(q·k)^8 (q.q)^8]",
    "9**9**9**9 = 1",
    "(" * 5000 + "q" + ")" * 5000,
    "E[" * 200 + "q·k" + "]" * 200,
    "a" * 100_000,
    "Σ_a " * 100 + "q_a",
    "E[zzsum_a]",
    "sum(q_a k_b)",
    "E[q_a k_b]",
    "exp(q·k)",
    "E[exp(q·k)]",
]


@pytest.fixture(scope="module")
def imports_loaded(both_step_checkers: str) -> None:  # noqa: F811  (the fixture)
    """Import machinery runs modules through `exec`: load everything a check needs first, once
    for each step checker (a second time would import nothing more)."""
    check_step("Var(q·k/√d_k)", "= Var(q·k)/√d_k", expected="1", assumptions=SCORES)
    check_step("e^{s_i}/Σ_j e^{s_j}", "= e^{s_i-m}/Σ_j e^{s_j-m}", assumptions=SOFTMAX)


@pytest.fixture
def nothing_is_evaluated(monkeypatch: pytest.MonkeyPatch, imports_loaded: None) -> None:
    """Make any string evaluation fail loudly: SymPy's string parser and Python's eval/exec."""
    import sympy.parsing.sympy_parser as sympy_parser

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("typed text reached an evaluator")

    # A reader remembers what it has read: every check here reads its text afresh.
    monkeypatch.setattr(derivation_check, "reader_for", StepReader)

    monkeypatch.setattr(sympy_parser, "parse_expr", forbidden)
    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)


@pytest.mark.usefixtures("nothing_is_evaluated")
@pytest.mark.parametrize("text", HOSTILE, ids=lambda text: repr(text[:30]))
def test_hostile_input_gives_a_verdict_and_runs_nothing(text: str) -> None:
    verdict = check_step("Var(q·k)", text, assumptions=SCORES)
    assert not verdict.correct
    assert verdict.message.startswith("could not"), verdict.message


def test_import_and_system_calls_are_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for attempt in [
        f"= __import__('os').system('touch {marker}')",
        f"E[q·k] = open('{marker}', 'w')",
        f"Var(q·k) = exec(\"open('{marker}', 'w')\")",
        f"= [open('{marker}', 'w') for _ in [1]]",
    ]:
        assert not check_step("Var(q·k)", attempt, assumptions=SCORES).readable
    assert not marker.exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("= ", "after `=`"),
        ("Var(q·k) ==  d_k", "`=` only"),
        ("Var(q·k) = = d_k", "each side"),
        ("E[q·k = 0", "never closed"),
        ("Var(x·y)", "not a known name"),
        ("Σ_q q_a k_a", "not an index"),
        ("E[q]", "q is a vector"),
        ("∂p_i", "derivative"),
    ],
)
def test_unreadable_steps_say_what_is_wrong(text: str, says: str) -> None:
    verdict = check_step("Var(q·k)", text, assumptions=SCORES)
    assert not verdict.valid and not verdict.correct
    assert verdict.message.startswith("could not")
    assert says in verdict.message


def test_the_first_line_cannot_continue_a_line_before_it() -> None:
    verdict = check_step(None, "= d_k", assumptions=SCORES)
    assert not verdict.readable and "first line" in verdict.message


def test_marker_names_never_show_in_messages() -> None:
    verdict = check_step("Var(q·k)", "Σ_a x_a", assumptions=SCORES)
    assert "zz" not in verdict.message


def test_a_step_beyond_the_model_is_readable_but_unchecked() -> None:
    verdict = check_step("Var(q·k)", "= E[exp(q·k)]", assumptions=SCORES)
    assert verdict.readable and not verdict.checked and not verdict.valid


def test_an_unreadable_expected_step_is_the_authors_problem() -> None:
    with pytest.raises(BankError):
        check_step("Var(q·k)", "= d_k", expected="E[", assumptions=SCORES)


def test_a_verdict_converts_to_the_common_verdict() -> None:
    verdict = check_step("Var(q·k)", "= d_k", expected="d_k", assumptions=SCORES).to_verdict()
    assert verdict.correct and verdict.valid and verdict.score == 1.0
    unreadable = check_step("Var(q·k)", "= E[", assumptions=SCORES).to_verdict()
    assert not unreadable.valid and not unreadable.correct


STEP_TEXT = st.text(
    alphabet=st.sampled_from(list("EVar[]()qk·._ad^2=+-*/√Σ∑ 01sumjmei{}\\∂δ")), max_size=50
)


@pytest.mark.slow
@settings(deadline=None, max_examples=300)
@given(st.one_of(st.text(max_size=60), STEP_TEXT))
def test_any_text_gives_a_verdict_never_an_exception(text: str) -> None:
    verdict = check_step("Var(q·k)", text, expected="d_k", assumptions=SCORES)
    assert isinstance(verdict, StepVerdict)
    assert verdict.readable or not verdict.valid
    assert not verdict.correct or verdict.valid


@pytest.mark.slow
@settings(deadline=None, max_examples=150)
@given(STEP_TEXT)
def test_any_text_gives_a_verdict_in_the_softmax_drill_too(text: str) -> None:
    assert isinstance(check_step("e^{s_i}", text, assumptions=SOFTMAX), StepVerdict)


@settings(deadline=None, max_examples=40)
@given(st.integers(min_value=-5, max_value=5), st.integers(min_value=1, max_value=4))
def test_a_correct_value_is_accepted_in_any_equal_form(shift: int, scale: int) -> None:
    line = f"= ({scale} d_k + {shift} - {shift}) / {scale}"
    assert check_step("Var(q·k)", line, expected="d_k", assumptions=SCORES).valid


@settings(deadline=None, max_examples=40)
@given(st.integers(min_value=2, max_value=9))
def test_a_wrong_multiple_of_the_variance_is_never_valid(factor: int) -> None:
    verdict = check_step("Var(q·k)", f"= {factor} d_k", expected="d_k", assumptions=SCORES)
    assert not verdict.valid and not verdict.reaches_expected


@pytest.mark.parametrize("line", ["= ∂/∂q (q·k)", "= ∂/∂q ∂/∂q ∂/∂q ∂/∂q (q·k)^9"])
def test_a_derivative_by_a_whole_random_vector_is_not_read_as_zero(line: str) -> None:
    # ∂/∂q of q·k was 0 (q·k is read through the components of q, so the symbol q was nowhere
    # in it), and four of them in a row were "correct" for E[q·k] = Σ_a E[q_a k_a].
    verdict = check_step("E[q·k]", line, expected="Σ_a E[q_a k_a]", assumptions=SCORES)
    assert not verdict.valid and not verdict.reaches_expected
    assert "q is a vector here" in verdict.message
