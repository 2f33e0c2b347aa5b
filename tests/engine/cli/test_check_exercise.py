"""`attnquiz check SET ITEM --answer TEXT` on a coding exercise: the answer is the path of the
file to grade, as a scripted session's line is. Any text was an internal error (exit 70:
"exercise cards are rated by the learner, not graded")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run

ATTENTION = """import numpy as np


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ V
"""


@pytest.mark.slow  # grades in the sandbox
def test_check_grades_an_exercise_from_the_file_it_names(run: Run, tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text(ATTENTION)
    done = run("check", "15", "attention", "--answer", str(mine), "--json")
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["correct"] and reply["valid"] and reply["item"] == "attention"
    wrong = tmp_path / "wrong.py"
    wrong.write_text(ATTENTION.replace("Q @ K.T", "Q @ K"))
    done = run("check", "15", "attention", "--answer", str(wrong), "--json")
    assert done.returncode == 1, done.stderr
    assert not json.loads(done.stdout)["correct"]


@pytest.mark.parametrize("answer", ["x", "", "/nonexistent/mine.py", "/dev/zero"])
def test_check_on_an_exercise_with_no_file_says_what_to_type(run: Run, answer: str) -> None:
    done = run("check", "15", "attention", "--answer", answer, "--json")
    assert done.returncode == 1, done.stderr
    reply = json.loads(done.stdout)
    assert not reply["correct"] and not reply["valid"]
    assert "type the path of" in reply["feedback"]
