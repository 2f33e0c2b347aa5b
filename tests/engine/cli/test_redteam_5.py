"""Red team, fifth pass: inputs that ended in a silent skip, an internal error or a false screen,
each now one clear line with exit 2 (or the right behaviour). In-process runs unless the process
is the point."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Run

BANK = """format_version: 1
set: mine
title: My own set
items:
  - id: one
    kind: number
    prompt: How many?
    answer: "1"
    abs_tol: 0.5
"""


def test_lint_says_which_files_of_a_folder_it_skipped(run: Run, tmp_path: Path) -> None:
    # A dangling symbolic link (or a pipe) with a bank's name was skipped without a word: lint
    # said the folder was fine while a file the author meant to check was never read.
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    (quizzes / "mine.yaml").write_text(BANK)
    (quizzes / "gone.yaml").symlink_to(tmp_path / "moved-away.yaml")
    os.mkfifo(quizzes / "pipe.yaml")
    done = run("lint", str(quizzes))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{quizzes / 'gone.yaml'}:1: a symbolic link to nothing" in done.stderr
    assert str(tmp_path / "moved-away.yaml") in done.stderr  # where it points
    assert f"{quizzes / 'pipe.yaml'}:1: not a regular file or folder" in done.stderr
    assert "mine.yaml" not in done.stderr  # the good file is still checked, and fine


def test_a_dangling_link_given_by_name_says_what_it_is(run: Run, tmp_path: Path) -> None:
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "moved-away.yaml")
    done = run("lint", str(link))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"{link}:1: a symbolic link to nothing ({tmp_path / 'moved-away.yaml'}): "
        "restore its target or remove the link"
    )


NUMBER_CARD = """format_version: 1
set: odd
title: Odd tolerances
items:
  - id: n
    kind: {kind}
    prompt: How many?
    answer: {answer}
    abs_tol: .inf
"""


@pytest.mark.parametrize(("kind", "answer"), [("number", '"5"'), ("vector", "[1, 2]")])
def test_an_infinite_tolerance_is_the_banks_error(
    run: Run, store_home: Path, kind: str, answer: str
) -> None:
    # `abs_tol: .inf` passed lint, and every answer was then "correct to the stated precision".
    bank = store_home / "quizzes" / "odd.yaml"
    bank.write_text(NUMBER_CARD.format(kind=kind, answer=answer))
    done = run("lint", str(bank))
    assert done.returncode == 2
    assert f"{bank}:9: item 'n': abs_tol: Input should be a finite number" in done.stderr


ACTING_BANK = r"""format_version: 1
set: acting
title: "Odd \x9b31m\u202eevil"
items:
  - id: v
    kind: expression
    prompt: "Var(q·k)? \x9b2J"
    answer: d_k
    positive: [d_k]
    mistakes:
      - answer: sqrt(d_k)
        message: "no \x9b31mred\u202e txet \x7f"
"""


@pytest.mark.parametrize(
    "args",
    [("check", "acting", "v", "--answer", "sqrt(d_k)", "--json"), ("stats", "acting", "--json")],
)
def test_json_output_carries_no_character_a_terminal_acts_on(
    run: Run, store_home: Path, args: tuple[str, ...]
) -> None:
    # JSON escapes C0 controls itself, but wrote a C1 control (U+009B, CSI in 8-bit form: a
    # terminal that takes it recolours or clears the screen), DEL and bidi overrides as they
    # were, so `--json` printed to a terminal acted on the author's text.
    import json

    (store_home / "quizzes" / "acting.yaml").write_text(ACTING_BANK, encoding="utf-8")
    done = run(*args)
    assert done.returncode in (0, 1), done.stderr
    for acting in ("\x9b", "\u202e", "\x7f"):
        assert acting not in done.stdout
    data = json.loads(done.stdout)  # the same data: written as JSON's \\uXXXX escapes
    assert "\x9b31m" in json.dumps(data, ensure_ascii=False)


def test_a_set_file_in_the_store_that_cannot_be_read_is_named(run: Run, store_home: Path) -> None:
    # `list 16` with quizzes/16.yaml a link to a device said "no question set '16'"; a set
    # folder's file that links to nothing was left out of the set without a word.
    quizzes = store_home / "quizzes"
    (quizzes / "16.yaml").symlink_to("/dev/zero")
    done = run("list", "16")
    assert done.returncode == 2
    assert done.stderr.strip().endswith(f"{quizzes / '16.yaml'}:1: not a regular file or folder")
    (quizzes / "demo").mkdir()
    (quizzes / "demo" / "more.yaml").symlink_to(store_home / "moved-away.yaml")
    done = run("list", "demo")
    assert done.returncode == 2
    assert f"{quizzes / 'demo' / 'more.yaml'}:1: a symbolic link to nothing" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


ESCAPING_NAME = "evil\x1b[31m\u202e.py"


def test_an_error_naming_a_file_shows_its_controls_as_escapes(run: Run, tmp_path: Path) -> None:
    # Error lines printed the file name as it was: its escape sequence recoloured the terminal.
    done = run("submit", str(tmp_path / ESCAPING_NAME))
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr
    assert "evil\\x1b[31m\\u202e.py" in done.stderr


def test_the_watch_line_shows_a_file_names_controls_as_escapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    from types import SimpleNamespace

    import watchfiles
    from rich.console import Console

    from engine.commands.watch import grade_until_passed

    mine = tmp_path / ESCAPING_NAME
    mine.write_text("x = 1\n")

    def one_save(*_args, **_kwargs):
        yield set()  # the watcher is running
        mine.write_text("x = 2\n")
        yield {("modified", str(mine))}

    monkeypatch.setattr(watchfiles, "watch", one_save)
    grades = iter([False, True])

    def grade_once() -> SimpleNamespace:
        return SimpleNamespace(
            passed=next(grades), verdict="wrong", message="", cases=[], diagnosis=[]
        )

    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, no_color=True)
    assert grade_until_passed(mine, grade_once, lambda _grade: None, console) == 0  # type: ignore[arg-type]
    assert "watching evil\\x1b[31m\\u202e.py" in out.getvalue()
    assert "\u202e" not in out.getvalue() and "\x1b[31m" not in out.getvalue()


def test_the_export_line_shows_a_file_names_controls_as_escapes(run: Run, tmp_path: Path) -> None:
    done = run("export", "demo", "--anki", str(tmp_path / "deck\x1b[31m\u202e.apkg"))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    assert "deck\\x1b[31m\\u202e.apkg" in "".join(done.stdout.split())
