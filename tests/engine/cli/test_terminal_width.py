"""Terminal widths from the environment that no terminal has: the help still shows, in lines
a terminal can hold, at once (`COLUMNS=99999999 attnquiz --help` ran for minutes, writing
lines of a hundred million characters; `COLUMNS=0` printed nothing)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import Run


def _shows_the_help(stdout: str) -> None:
    lines = stdout.splitlines()
    assert any("Usage" in line for line in lines), stdout
    assert max(len(line) for line in lines) <= 1000
    assert "quiz" in stdout and "submit" in stdout


@pytest.mark.parametrize("value", ["0", "3", "100000"])
def test_the_help_shows_within_sane_widths_whatever_columns_says(run: Run, value: str) -> None:
    done = run("--help", env={"COLUMNS": value})
    assert done.returncode == 0, done.stderr
    _shows_the_help(done.stdout)


@pytest.mark.slow  # a real process: Typer reads TERMINAL_WIDTH once, as it is imported
@pytest.mark.parametrize("value", ["0", "100000"])
def test_the_help_shows_within_sane_widths_whatever_terminal_width_says(value: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TERMINAL_WIDTH": value},
    )
    assert done.returncode == 0, done.stderr
    _shows_the_help(done.stdout)
