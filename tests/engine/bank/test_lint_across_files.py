"""`attnquiz lint` on a set split over several files: an id that two files of the set both give
(bank items, or derivation drills) is a problem at its second place, naming the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main

BANK = """\
format_version: 1
set: demo
title: Demo
items:
  - id: {id}
    kind: recall
    prompt: Say the equation.
    back: softmax(Q Kᵀ / √d_k) V
"""
DRILLS = """\
format_version: 1
set: demo
title: Demo drills
drills:
  - id: {id}
    title: Why the scale
    goal: Say why the scores are divided by the square root of d_k.
    target: so that the scores have variance 1 whatever d_k
    steps:
      - ask: Say it in words.
        expect: so that the scores have variance 1 whatever d_k
        hint: Var(q·k) = d_k.
        check: self-rated
"""


def _set_in_files(tmp_path: Path, folder: str, text: str, ids: dict[str, str]) -> Path:
    """Set `demo` as one file per entry of `ids` (file name -> the id of its one entry)."""
    files = tmp_path / folder / "demo"
    files.mkdir(parents=True)
    for name, entry_id in ids.items():
        (files / name).write_text(text.format(id=entry_id), encoding="utf-8")
    return files


@pytest.mark.parametrize(("folder", "text"), [("quizzes", BANK), ("drills", DRILLS)])
def test_an_id_given_by_two_files_of_a_set_is_one_problem_naming_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, text: str
) -> None:
    files = _set_in_files(
        tmp_path, folder, text, {"a.yaml": "one", "b.yaml": "one", "c.yaml": "two"}
    )
    assert main(["lint", str(tmp_path / folder)]) == 2
    err = capsys.readouterr().err
    first, second = files / "a.yaml", files / "b.yaml"
    assert err.splitlines() == [
        f"{second}:5: duplicate id 'one' (also in {first}:5)",
        "1 problem(s) in 3 file(s)",
    ]


@pytest.mark.parametrize(("folder", "text"), [("quizzes", BANK), ("drills", DRILLS)])
def test_different_ids_across_the_files_of_a_set_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, text: str
) -> None:
    _set_in_files(tmp_path, folder, text, {"a.yaml": "one", "b.yaml": "two"})
    assert main(["lint", str(tmp_path / folder)]) == 0, capsys.readouterr().err
