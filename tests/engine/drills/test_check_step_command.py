"""`attnquiz check SET DRILL --step N --answer TEXT [--json]`: one line of a derivation drill.

The line is graded as step N of the shipped drill, from the state after steps 1..N-1, in the
bounded checking worker; the JSON has docs/spec.md's fields plus `step`; exit 0 right, 1 not right,
2 for an unknown set, drill or step, one line on stderr and never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from tests.engine.cli.conftest import run  # noqa: F401  (the fixture)

FIELDS = {"item", "correct", "valid", "interpreted_as", "feedback", "step"}


def check_step(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["check", "15", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_right_line_with_another_index_letter_is_correct(capsys) -> None:
    code, out = check_step(capsys, "mean-var-dot", "--step", "2", "--answer", "Σ_i E[q_i] E[k_i]")
    assert code == 0
    assert set(out) == FIELDS
    assert out["item"] == "mean-var-dot" and out["step"] == 2
    assert out["correct"] is True and out["valid"] is True


def test_a_step_right_only_in_value_is_wrong_and_names_the_rule(capsys) -> None:
    code, out = check_step(capsys, "mean-var-dot", "--step", "2", "--answer", "Σ_a E[q_a k_a]^2")
    assert code == 1
    assert out["correct"] is False and out["valid"] is True
    assert "squaring is not a valid step" in str(out["feedback"])


def test_restating_the_previous_line_is_not_the_step(capsys) -> None:
    code, out = check_step(capsys, "var-scaled", "--step", "2", "--answer", "= Var(q·k)/d_k")
    assert code == 1
    assert "the line you started from" in str(out["feedback"])


def test_a_left_side_naming_the_quantity_is_accepted(capsys) -> None:
    code, out = check_step(capsys, "backward-pass", "--step", "2", "--answer", "∂L/∂v_j = δ a_j")
    assert code == 0, out
    code, out = check_step(
        capsys, "intensity-crossover", "--step", "1", "--answer", "FLOPs = 2T^2 d_k"
    )
    assert code == 0, out


def test_an_unreadable_line_is_not_valid_and_says_what_is_wrong(capsys) -> None:
    code, out = check_step(capsys, "mean-var-dot", "--step", "1", "--answer", "E[q·k = 0")
    assert code == 1
    assert out["valid"] is False and "never closed" in str(out["feedback"])


def test_the_plain_output_gives_the_verdict_and_the_expected_line(capsys) -> None:
    assert main(["check", "15", "var-scaled", "--step", "3", "--answer", "1/d_k"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("✗ wrong") and "expected: 1" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["15", "nope", "--step", "1"], "has no drill 'nope'"),
        (["15", "mean-var-dot", "--step", "7"], "steps 1 to 6, not 7"),
        (["15", "mean-var-dot", "--step", "0"], "steps 1 to 6, not 0"),
        (["15", "max-trick", "--step", "3"], "self-rated"),
        (["nosuchset", "mean-var-dot", "--step", "1"], "no drills for set 'nosuchset'"),
        (["15", "mean-var-dot", "--step", "two"], "Invalid value for '--step'"),
    ],
)
def test_an_unknown_drill_or_step_exits_2_with_one_line(
    args: list[str], message: str, capsys
) -> None:
    assert main(["check", *args, "--answer", "0", "--json"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.parametrize(
    "answer",
    ["__import__('os').system('touch PWNED')", "(" * 3000 + "q_a" + ")" * 3000,
     "Σ_a (q_a k_a)^9^9^9", "E[" * 200, "\x1b[31m", "zzmoment1q"],
)  # fmt: skip
def test_hostile_lines_get_a_json_verdict_never_an_error(
    answer: str,
    run,  # noqa: F811
    tmp_path: Path,
) -> None:
    result = run("check", "15", "mean-var-dot", "--step", "1", "--answer", answer, "--json")
    assert result.returncode == 1, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == FIELDS and out["correct"] is False
    assert not (tmp_path / "PWNED").exists() and "Traceback" not in result.stderr
