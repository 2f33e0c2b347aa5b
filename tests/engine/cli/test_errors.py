"""Errors by audience at the command-line edge: a bug exits 70 and says so, without a traceback;
Typer's own usage errors are one line and exit 2; the help of a bare command exits 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import engine.commands.listing
from engine.cli import main
from engine.exit_codes import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE


def explode(*args: object, **kwargs: object) -> int:
    raise ValueError("raw internal detail 0xdeadbeef")


def test_an_internal_error_exits_70_and_says_it_is_a_bug(monkeypatch, capsys) -> None:
    monkeypatch.setattr(engine.commands.listing, "run_list", explode)
    assert main(["list", "demo"]) == EXIT_INTERNAL == 70
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert err.count("\n") == 1
    assert "this is a bug in attnquiz" in err and "ATTNQUIZ_DEBUG=1" in err
    assert "Traceback" not in err
    # The learner reads what happened and what to do, not the exception's raw text.
    assert "0xdeadbeef" not in err


def test_attnquiz_debug_adds_the_traceback_and_still_exits_70(monkeypatch, capsys) -> None:
    monkeypatch.setattr(engine.commands.listing, "run_list", explode)
    monkeypatch.setenv("ATTNQUIZ_DEBUG", "1")
    assert main(["list", "demo"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "0xdeadbeef" in err
    assert err.rstrip().splitlines()[-1].startswith("attnquiz: error: internal error")


def test_a_failure_while_starting_the_checker_is_an_internal_error_too(monkeypatch, capsys) -> None:
    from engine.checking.worker.bounded import BoundedChecker

    monkeypatch.setattr(BoundedChecker, "start", explode)
    assert main(["check", "demo", "expr-var", "--answer", "d"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "this is a bug in attnquiz" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_real_process_exits_70_with_one_line_and_no_traceback(store_home: Path) -> None:
    # The exit status must survive `sys.exit(main())` in a real interpreter, not only main().
    script = (
        "import sys\n"
        "import engine.commands.listing as listing\n"
        "def explode(*a, **k):\n"
        "    raise KeyError('raw')\n"
        "listing.run_list = explode\n"
        "from engine.cli import main\n"
        "sys.exit(main(['list', 'demo']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 70
    assert result.stderr.count("\n") == 1 and "this is a bug in attnquiz" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["list", "demo", "--bogus"],
        ["stats", "demo", "extra-argument"],
        ["no-such-command-name", "--new", "abc"],
        ["lab", "scaling", "--d-k", "1"],
    ],
)
def test_typers_own_errors_are_one_line_and_exit_2(args: list[str], capsys) -> None:
    assert main(args) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("attnquiz: error: ")
    assert "--help" in captured.err and "Traceback" not in captured.err


@pytest.mark.parametrize("args", [[], ["lab"]], ids=["attnquiz", "attnquiz lab"])
def test_a_bare_group_shows_its_help_and_exits_0(args: list[str], capsys) -> None:
    assert main(args) == EXIT_OK
    captured = capsys.readouterr()
    assert "Usage: attnquiz" in captured.out
    assert "error" not in captured.err


@pytest.mark.parametrize("func", ['x")\nimport os  #', "a.b.c", "[bold]f[/]", "1st"])
@pytest.mark.parametrize("exercise", [[], ["--exercise", "attention"]])
def test_a_func_that_is_no_python_name_is_one_line_and_exit_2(
    func: str, exercise: list[str], tmp_path: Path, run
) -> None:
    # Caught before any sandbox starts; the name is shown escaped, on one line.
    mine = tmp_path / "mine.py"
    mine.write_text("def attention(Q, K, V):\n    return Q\n", encoding="utf-8")
    done = run("submit", str(mine), "--func", func, "--no-time", *exercise)
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr.count("\n") == 1 and "is not a Python function name" in done.stderr
    assert done.stdout == ""
