"""Bank authors: an answer that calls an unknown function is a lint error at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main

BANK = """\
format_version: 1
set: demo
title: Demo
items:
  - id: angle
    kind: expression
    prompt: What is cos(2x) in terms of cos x and sin x?
    answer: cos(x)^2 - sin(x)^2
  - id: typo
    kind: expression
    prompt: A formula with a misspelt function.
    answer: coss(2*x)
"""


def test_an_unknown_function_in_an_answer_is_reported_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(BANK, encoding="utf-8")
    code = main(["lint", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{path}:9:" in err and "`coss(...)`" in err and "not a function" in err
    assert ":5:" not in err  # cos, sin: known functions, not cos·2·x


def test_known_functions_are_read_as_functions_in_author_answers() -> None:
    from engine.checking import check_expression

    assert check_expression("1 - 2 sin(x)^2", "cos(2*x)").correct
    assert not check_expression("cos(x) * 2 * x", "cos(2*x)").correct


def test_the_limits_that_keep_learner_input_cheap_do_not_refuse_an_author_answer() -> None:
    from engine.checking import check_expression

    # x^150 is past a learner's exponent limit, but a bank may state it (lint verifies it).
    learner = check_expression("x^150", "x^2")
    assert not learner.valid and "exponent too large" in learner.feedback
    assert check_expression("x^2", "x^150").valid  # the author's answer is read, not refused
    assert not check_expression("x^2", "x^150").correct


def test_a_learner_may_type_numbers_as_large_as_the_expected_answer_needs() -> None:
    from engine.checking import check_expression

    assert check_expression("x^150", "x^150").correct
    assert check_expression("(a-x)^150", "(x-a)^150").correct
    assert not check_expression("(a-x)^151", "(x-a)^151").correct
    # ... and no larger than an author may write.
    beyond = check_expression("x^5000", "x^150")
    assert not beyond.valid and "exponent too large" in beyond.feedback
