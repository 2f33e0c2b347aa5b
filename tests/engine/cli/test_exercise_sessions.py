"""A coding exercise due in a review session: scripted (the line is a file's path) and in a real
terminal (the learner's editor opens on their copy, and the saved file is graded)."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from tests.engine.cli.conftest import COMMAND, cli_env

GOOD = """import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""
UNSTABLE = """import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
"""

# A learner's own set with one exercise, graded on a built-in battery.
BANK = """format_version: 1
set: ex
title: one exercise
items:
  - id: my-softmax
    kind: exercise
    title: Softmax from memory
    function: softmax
    signature: "softmax(x, axis=-1)"
    battery: stable-softmax
    prompt: Write a softmax that never overflows.
    starter: |
      def softmax(x, axis=-1):
          raise NotImplementedError
    hints: [Subtract each slice's max., "e = np.exp(x - x.max(axis=axis, keepdims=True))"]
    mistakes:
      - name: unstable_softmax
        message: exp overflows without the max subtraction.
        variant: |
          import numpy as np
          def softmax(x, axis=-1):
              e = np.exp(x)
              return e / e.sum(axis=axis, keepdims=True)
    solution: |
      import numpy as np
      def softmax(x, axis=-1):
          e = np.exp(x - x.max(axis=axis, keepdims=True))
          return e / e.sum(axis=axis, keepdims=True)
    explanation: The max of each slice cancels in the ratio.
"""


def grades(home: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(home / "attnquiz.sqlite3") as db:
        return [tuple(r) for r in db.execute("SELECT item_id, rating FROM reviews ORDER BY id")]


def add_bank(home: Path) -> None:
    (home / "quizzes" / "ex.yaml").write_text(BANK, encoding="utf-8")


def test_a_scripted_session_grades_the_file_named_on_the_line(run, store_home, tmp_path) -> None:
    add_bank(store_home)
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(GOOD)
    bad.write_text(UNSTABLE)
    result = run("ex", input=f"{bad}\n")
    assert "exp overflows without the max subtraction" in " ".join(result.stdout.split())
    assert grades(store_home) == [("my-softmax", 1)]
    cram = run("ex", "--cram", input=f"{good}\n")
    assert "cases pass" in cram.stdout and cram.returncode == 0


def test_a_missing_file_is_not_an_answer_and_the_card_is_asked_again(
    run, store_home, tmp_path
) -> None:
    add_bank(store_home)
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = run("ex", input=f"{tmp_path / 'nope.py'}\n{good}\n")
    assert "no such file" in " ".join((result.stdout + result.stderr).split())
    assert grades(store_home) == [("my-softmax", 3)]


@pytest.mark.slow  # a real process at a pseudo-terminal, with a real editor process
def test_in_a_terminal_enter_opens_the_editor_and_the_saved_file_is_graded(
    store_home: Path, tmp_path: Path
) -> None:
    add_bank(store_home)
    solution = tmp_path / "solution.py"
    solution.write_text(GOOD)
    editor = tmp_path / "editor.sh"
    # The "editor" writes the learner's solution into the file it is given, as a person would.
    editor.write_text(f'#!/bin/sh\ncp "{solution}" "$1"\n')
    editor.chmod(0o755)
    env = {**cli_env(store_home), "EDITOR": str(editor), "VISUAL": "", "TERM": "dumb"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: attnquiz on the pseudo-terminal
        os.execvpe(sys.executable, [*COMMAND, "quiz", "ex"], env)
    screen = b""

    def read_until(marker: bytes, limit: float = 180.0) -> None:
        nonlocal screen
        deadline = time.monotonic() + limit  # only a guard against a hang
        while marker not in screen and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                try:
                    screen += os.read(fd, 4096)
                except OSError:
                    break
        assert marker in screen, screen.decode(errors="replace")[-2000:]

    try:
        read_until(b"your editor")
        os.write(fd, b"\r")
        read_until(b"cases pass")
        read_until(b"Enter")
        os.write(fd, b"\r")  # take the suggested rating
        read_until(b"next review")
        os.write(fd, b":quit\r")
        read_until(b"session")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    attempt = store_home / "exercises" / "ex" / "my-softmax.py"
    assert attempt.read_text() == GOOD
    assert grades(store_home) == [("my-softmax", 3)]


def test_lint_checks_the_learners_exercise_like_the_built_in_ones(run, store_home: Path) -> None:
    add_bank(store_home)
    broken = BANK.replace("exp(x - x.max(axis=axis, keepdims=True))", "exp(x)")
    (store_home / "quizzes" / "ex.yaml").write_text(broken, encoding="utf-8")
    result = run("lint", str(store_home / "quizzes" / "ex.yaml"))
    assert result.returncode == 2
    assert "reference solution does not pass" in result.stdout + result.stderr


def test_hints_come_one_at_a_time_and_a_pass_after_one_suggests_hard(
    run, store_home, tmp_path
) -> None:
    add_bank(store_home)
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = run("ex", input=f":hint\n:hint\n{good}\n")
    out = " ".join(result.stdout.split())
    assert "hint: Subtract each slice's max." in out
    assert "hint: e = np.exp(x - x.max(axis=axis, keepdims=True))" in out
    assert grades(store_home) == [("my-softmax", 2)]
