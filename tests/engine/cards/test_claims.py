"""A bank author's wrong number is caught by lint, which names the item and what the kernel
computed: for a number card's answer and for numbers quoted in any card's text (`stated`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cards.claims import written_precision
from engine.cli import main
from engine.paths import builtin_dir
from tests.conftest import run_cli

HEADER = "format_version: 1\nset: demo\ntitle: Demo\nitems:\n"
CROSSOVER = """\
  - id: crossover
    kind: number
    prompt: Above which d_k is Q Kᵀ compute-bound on a machine of balance 10?
    answer: {answer}
    abs_tol: 0.5
    compute: roofline_crossover
    inputs: {{balance: 10, dtype: float32}}
"""
QUOTING = """\
  - id: identity-weights
    kind: recall
    prompt: With Q = K = I₃, row 0 of the weights is about {weights}. Why is it symmetric?
    back: Every key but the first gets the same score 0.
    stated:
      - value: {weights}
        compute: attention_weights_row
        inputs:
          Q: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
          K: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
          row: 1
"""


def lint(tmp_path: Path, items: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(HEADER + items, encoding="utf-8")
    code = main(["lint", str(path)])
    return code, capsys.readouterr().err


def test_right_numbers_lint_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = CROSSOVER.format(answer=40) + QUOTING.format(weights="[0.471, 0.264, 0.264]")
    assert lint(tmp_path, items, capsys) == (0, "")


def test_a_mistyped_answer_is_reported_with_the_computed_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = lint(tmp_path, CROSSOVER.format(answer=44), capsys)
    assert code == 2
    (problem, summary) = err.strip().splitlines()
    assert problem.endswith(
        "demo.yaml:5: item 'crossover': the answer is 44, "
        "but roofline_crossover(balance=10, dtype=float32) computes 40"
    )
    assert summary == "1 problem(s) in 1 file(s)"


def test_an_answer_written_as_a_formula_shows_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = CROSSOVER.format(answer="'4 * 11'")
    code, err = lint(tmp_path, item, capsys)
    assert code == 2 and "the answer 4 * 11 is 44, but roofline_crossover" in err


def test_a_mistyped_quoted_number_is_reported_with_the_computed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = lint(tmp_path, QUOTING.format(weights="[0.471, 0.246, 0.264]"), capsys)
    assert code == 2
    assert "item 'identity-weights': the bank states [0.471, 0.246, 0.264]" in err
    assert "computes [0.471083, 0.264458, 0.264458]" in err


def test_a_quoted_number_must_be_right_to_the_decimals_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 0.4711 rounds to 0.471; writing 0.472 claims a digit that is wrong.
    code, err = lint(tmp_path, QUOTING.format(weights="[0.472, 0.264, 0.264]"), capsys)
    assert code == 2 and "identity-weights" in err
    assert written_precision(0.264) == pytest.approx(0.0005)
    assert written_precision(16.0) == pytest.approx(0.5)
    assert written_precision(2.5e-5) == pytest.approx(1.25e-7)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("    compute: eval\n", "compute 'eval' is not one of"),
        ("    compute: score_std\n    inputs: {d_k: 0}\n", "input 'd_k' of score_std"),
        ("    inputs: {d_k: 64}\n", "no compute names the computation"),
    ],
)
def test_a_number_card_naming_a_bad_computation_is_an_error_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, message: str
) -> None:
    item = "  - id: std\n    kind: number\n    prompt: std?\n    answer: 8\n    abs_tol: 0.1\n"
    code, err = lint(tmp_path, item + extra, capsys)
    assert code == 2 and "demo.yaml:5: item 'std'" in err and message in err


@pytest.mark.slow
def test_a_wrong_number_typed_into_the_shipped_bank_is_named_by_the_cli(tmp_path: Path) -> None:
    shipped = (builtin_dir("quizzes") / "15.yaml").read_text(encoding="utf-8")
    typo = shipped.replace(
        "    answer: 40\n    abs_tol: 0.5\n    compute: roofline_crossover",
        "    answer: 48\n    abs_tol: 0.5\n    compute: roofline_crossover",
    )
    assert typo != shipped
    copy = tmp_path / "quizzes" / "15.yaml"
    copy.parent.mkdir()
    copy.write_text(typo, encoding="utf-8")
    done = run_cli("lint", str(copy), env={"ATTNQUIZ_HOME": str(tmp_path / "home")})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2
    assert "item 'roofline-crossover': the answer is 48" in lines[0]
    assert "computes 40" in lines[0]
