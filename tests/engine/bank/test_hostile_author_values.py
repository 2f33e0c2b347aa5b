"""Values in a bank or drill that no answer could ever be checked against: a number beyond the
floating-point range, a `ranges:` interval that is empty, infinite or of a size at which the
test points overflow or underflow.

Each is refused when the set is opened (PATH:LINE, exit 2), before a question is shown, as
lint reports it: never only after the learner has typed an answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliResult, Run

BANK = """format_version: 1
kind: bank
set: "98"
title: Hostile values
items:
  - id: item
    kind: {kind}
    prompt: What is it?
    answer: {answer}
{extra}"""

DRILL = """format_version: 1
kind: drills
set: "99"
title: Hostile values
drills:
  - id: drill
    title: One step
    goal: Find it.
    steps:
      - ask: What is the standard deviation at d_k = 512?
        check: value
        given: {{d_k: {given}}}
        expect: {expect}
        hint: The square root of the variance.
    target: sqrt(512)
"""

BANKS = {
    "expression answer beyond float range": ("expression", '"1e400"', ""),
    "expression answer with a long numeral": ("expression", '"x + ' + "9" * 320 + '"', ""),
    "mistake beyond float range": (
        "expression",
        '"2*x"',
        '    mistakes:\n      - {answer: "2.5E+999 * x", message: far off}\n',
    ),
    "number answer beyond float range": ("number", '"1e400"', "    abs_tol: 0.5\n"),
    "number answer that is infinite": ("number", ".inf", "    abs_tol: 0.5\n"),
    "range upside down": ("expression", '"2*x"', "    ranges: {x: [2, 1]}\n"),
    "range with an infinite end": ("expression", '"2*x"', "    ranges: {x: [0, .inf]}\n"),
    "range near the float limit": ("expression", '"2*x"', "    ranges: {x: [1.0e+300, 1e308]}\n"),
    "range too small to tell answers apart": (
        "expression",
        '"2*x"',
        "    ranges: {x: [1.0e-300, 1.0e-200]}\n",
    ),
    "integer range with no integer": (
        "expression",
        '"2*x"',
        "    integer: [x]\n    ranges: {x: [0.2, 0.8]}\n",
    ),
}


def _refused_before_asking(result: CliResult, path: Path, question: str, at: str = "") -> None:
    """The session ended with exit 2 and an error at `path` (line `at`), before `question`."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert question not in result.stdout
    assert result.stderr.startswith(f"attnquiz: error: {path}:{at}"), result.stderr


@pytest.mark.parametrize("case", sorted(BANKS))
def test_a_bank_value_no_answer_can_be_checked_against_is_refused_up_front(
    case: str, store_home: Path, run: Run
) -> None:
    kind, answer, extra = BANKS[case]
    path = store_home / "quizzes" / "98.yaml"
    path.write_text(BANK.format(kind=kind, answer=answer, extra=extra), encoding="utf-8")
    lint = run("lint", str(path))
    assert lint.returncode == 2, lint.stdout + lint.stderr
    # The session refuses the file before the question: the answer line is never read.
    result = run("quiz", "98", input="2*x\n")
    _refused_before_asking(result, path, "What is it?")
    assert "Traceback" not in result.stderr


DRILLS = {
    # the step's value, its expected line, and the line of the file that holds the number
    "given beyond float range": ('"1e400"', "sqrt(512)", 12),
    "given beyond float range, upper-case": ('"1.5E+400"', "sqrt(512)", 12),
    "given as a power beyond float range": ('"10^400"', "sqrt(512)", 12),
    "expected line beyond float range": ('"512"', '"sqrt(1e999)"', 13),
}


@pytest.mark.parametrize("case", sorted(DRILLS))
def test_a_drill_value_beyond_float_range_is_refused_before_the_first_step(
    case: str, store_home: Path, run: Run
) -> None:
    given, expect, line = DRILLS[case]
    path = store_home / "drills" / "99.yaml"
    path.parent.mkdir()
    path.write_text(DRILL.format(given=given, expect=expect), encoding="utf-8")
    result = run("drill", "99", "drill", input="sqrt(512)\n")
    _refused_before_asking(result, path, "step 1/1", at=f"{line}:")
    assert "beyond the floating-point range" in result.stderr


def _bank_with_range(store_home: Path, ranges: str) -> Path:
    """A bank in the store folder whose one item, 2*x, declares `ranges` for x."""
    path = store_home / "quizzes" / "98.yaml"
    path.write_text(
        BANK.format(kind="expression", answer='"2*x"', extra=f"    ranges: {{x: {ranges}}}\n"),
        encoding="utf-8",
    )
    return path


def _the_quiz_grades_two_x(run: Run) -> None:
    result = run("quiz", "98", input="x + x\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "correct" in result.stdout.lower()


@pytest.mark.parametrize(
    "ranges",
    ["[0, 1]", "[1, 4096]", "[-1000, 1000]", "[0.001, 0.01]", "[1, 1.0e+7]", "[1, 1.0e+10]"],
    ids=str,
)
def test_ordinary_ranges_still_load(ranges: str, store_home: Path, run: Run) -> None:
    _bank_with_range(store_home, ranges)
    _the_quiz_grades_two_x(run)


TIMED = """format_version: 1
kind: timed-drill
set: "15"
title: Hostile values
timed:
  parts:
    - id: variance
      title: the variance
      assumptions:
        normal_vectors: [q, k]
      questions:
        - prompt: Var(q·k) = ?
          step: {previous: Var(q·k), expected: "1e400"}
          answer: Var(q·k) = d_k
"""


def test_a_timed_drill_value_beyond_float_range_is_refused_before_the_clock_starts(
    store_home: Path, run: Run
) -> None:
    path = store_home / "drills" / "15-timed.yaml"
    path.parent.mkdir()
    path.write_text(TIMED, encoding="utf-8")
    result = run("drill", "15", "--timed", input="d_k\n")
    _refused_before_asking(result, path, "Var(q·k) = ?", at="13:")
    assert "beyond the floating-point range" in result.stderr


@pytest.mark.parametrize(
    ("ranges", "size"), [("[1.0e+9, 1.0e+10]", "1e+10"), ("[1.0e-14, 1.0e-13]", "1e-13")], ids=str
)
def test_a_range_where_the_test_is_weak_loads_as_before_and_lint_warns(
    ranges: str, size: str, store_home: Path, run: Run
) -> None:
    # A user's bank that loaded before keeps loading; lint tells its author why x + 1 or -x may
    # pass for x there.
    path = _bank_with_range(store_home, ranges)
    lint = run("lint", str(path))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert f"{path}:6: warning: item 'item': the range of x reaches {size} in size" in lint.stderr
    assert "(1 warning(s))" in lint.stdout
    _the_quiz_grades_two_x(run)
