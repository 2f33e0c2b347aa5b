"""The exercise verdict prints what the learner's code said exactly, never as markup or control."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from attention_ref.grading import CaseReport, Grade, conclude
from engine.cards.exercise import ExerciseItem
from engine.commands.exercises import find_exercise
from engine.ui.exercise_report import case_table, headline, show_exercise_grade
from engine.ui.submit_report import VERDICT_WORDS


def test_a_case_message_from_the_code_is_printed_literally() -> None:
    message = "raised ValueError: [bold red]oops[/] \x1b[2J"
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    console.print(case_table([CaseReport("[link=x]rows[/link]", False, message)]))
    text = out.getvalue()
    assert "[bold red]oops[/]" in text
    assert "[link=x]rows[/link]" in text
    assert "\x1b" not in text and "\\x1b[2J" in text


FULL_MATRIX = """import numpy as np

def tiled_attention(Q, K, V, block=64):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ V
"""


def _report(grade: Grade, item: ExerciseItem) -> str:
    out = io.StringIO()
    show_exercise_grade(grade, item, "15", Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_right_values_over_the_memory_bound_are_reported_as_such_with_the_figures(
    tmp_path: Path,
) -> None:
    # The untiled solution computes every value right but holds the T_q x T_k scores at once.
    _, item = find_exercise("tiled-attention", tmp_path)
    path = tmp_path / "mine.py"
    path.write_text(FULL_MATRIX)
    grade = item.grade_source(FULL_MATRIX, path)
    memory = next(case for case in grade.cases if case.name == "memory")
    assert grade.verdict == "wrong" and memory.over_memory_only(), memory.message
    assert all(case.passed for case in grade.cases if case.name != "memory")
    first = _report(grade, item).splitlines()[0]
    assert "wrong values" not in first
    assert "right values" in first and "memory" in first
    held, bound = memory.peak_bytes, memory.peak_bound_bytes
    assert held is not None and bound is not None
    assert f"{held / 2**20:.1f} MiB" in first and f"{bound / 2**20:.1f} MiB" in first


def _case(name: str, passed: bool, **fields: Any) -> CaseReport:
    return CaseReport(name, passed, "", **fields)


def test_the_headline_says_wrong_values_when_any_failed_case_has_them() -> None:
    over = {"peak_bytes": 40 * 2**20, "peak_bound_bytes": 16 * 2**20}
    only_memory = conclude(
        Grade(False, "pass", "x", "f", [], [_case("rows", True), _case("memory", False, **over)])
    )
    assert headline(only_memory).startswith("returns the right values, but uses too much memory")
    assert "40.0 MiB" in headline(only_memory) and "16.0 MiB" in headline(only_memory)
    both = conclude(
        Grade(False, "pass", "x", "f", [], [_case("rows", False), _case("memory", False, **over)])
    )
    assert headline(both) == VERDICT_WORDS["wrong"]
    under = {"peak_bytes": 8 * 2**20, "peak_bound_bytes": 16 * 2**20}
    passed = conclude(Grade(False, "pass", "x", "f", [], [_case("memory", True, **under)]))
    assert headline(passed) == VERDICT_WORDS["pass"]
