"""Red team, fourth pass: inputs that ended in an internal error or a false screen, each now one
clear line with exit 2 (or the right behaviour). In-process runs unless the process is the point."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run

NO_HOME = "~attnquiz-no-such-user"  # a user the system does not know: no home to expand to
SOLUTION = """import numpy as np


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ V
"""


def _one_clear_line(done, text: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], done.stderr


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("stats", "demo"), {"ATTNQUIZ_HOME": f"{NO_HOME}/store"}),
        (("stats", "demo", "--data-dir", f"{NO_HOME}/store"), {}),
        (("export", "demo", "--anki", f"{NO_HOME}/deck.apkg"), {}),
    ],
)
def test_a_home_folder_that_cannot_be_found_is_bad_input(run: Run, args, env) -> None:
    # `~user` of no known user: Path.expanduser raised RuntimeError, an internal error (exit 70).
    _one_clear_line(run(*args, env=env), NO_HOME)


def test_submit_with_a_store_under_an_unknown_home_still_grades(run: Run, tmp_path: Path) -> None:
    # `submit` keeps the store out of the sandbox's reach; it does not open it. The store folder
    # it cannot expand is a relative path (under the working folder, kept out anyway).
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION)
    done = run("submit", str(mine), "--no-time", env={"ATTNQUIZ_HOME": f"{NO_HOME}/store"})
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr


def test_an_exercise_answer_naming_an_unknown_home_asks_again(tmp_path: Path) -> None:
    # A path typed in a session: it was an internal error that ended the session.
    from engine.bank.catalog import open_set
    from engine.cards.exercise import ExerciseItem
    from engine.exercise_attempts import grade_attempt

    item = next(i for i in open_set("15", tmp_path).items if isinstance(i, ExerciseItem))
    verdict = grade_attempt(item, f"{NO_HOME}/softmax.py")
    assert not verdict.valid and not verdict.correct
    assert NO_HOME in verdict.feedback


UNREADABLE_NUMBER = """format_version: 1
set: odd
title: A bank whose number answer cannot be worked out
items:
  - id: too-large
    kind: number
    prompt: How many?
    answer: "{answer}"
    abs_tol: 0.5
"""


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        # A numeral beyond float range is refused as the bank is read (red team, pass 6).
        ("1e400", "the number `1e400` is beyond the floating-point range"),
        ("10**10**10", "answer '10**10**10' is not a number"),
    ],
)
def test_a_bank_answer_that_cannot_be_worked_out_is_the_banks_fault(
    run: Run, store_home: Path, answer: str, problem: str
) -> None:
    # It was the learner's answer that "could not be read" (`check` exit 1; a session asked the
    # same question again and again), whatever they typed.
    (store_home / "quizzes" / "odd.yaml").write_text(UNREADABLE_NUMBER.format(answer=answer))
    done = run("check", "odd", "too-large", "--answer", "5")
    _one_clear_line(done, problem)
    assert done.stdout == ""  # no verdict on the learner's answer
    done = run("quiz", "odd", input="5\n5\n")
    assert "answers this question again" not in done.stderr
    assert done.returncode == 2 and problem in done.stderr


@pytest.mark.parametrize("columns", ["0", "1"])
@pytest.mark.parametrize("command", [("stats", "demo"), ("list", "demo")])
def test_a_zero_or_one_column_terminal_still_shows_the_output(
    run: Run, columns: str, command: tuple[str, ...]
) -> None:
    # COLUMNS=0 printed nothing at all (exit 0), COLUMNS=1 one character per line.
    done = run(*command, env={"COLUMNS": columns, "LINES": "40"})
    assert done.returncode == 0, done.stderr
    assert "A tiny course for the tests" in done.stdout
