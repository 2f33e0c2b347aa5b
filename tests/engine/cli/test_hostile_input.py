"""Standard input that is not UTF-8 text: each bad line is noted, and the session goes on.

A real process, so that standard input is the interpreter's own, decoded as it decodes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Every test starts a real process.
pytestmark = pytest.mark.slow

BAD_LINES = [b"\xff\xfe\n", b"d_\xc3\n", b"\xed\xa0\x80 surrogate\n"]


def attnquiz(home: Path, *args: str, script: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        input=script,
        capture_output=True,
        timeout=120,
        # Strict decoding, as Python does under a UTF-8 locale such as en_US.UTF-8.
        env={**os.environ, "ATTNQUIZ_HOME": str(home), "PYTHONIOENCODING": "utf-8:strict"},
    )


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_quiz_notes_bytes_that_are_not_utf8_and_goes_on(bad: bytes, store_home: Path) -> None:
    done = attnquiz(store_home, "quiz", "demo", script=bad + b"3\n2\n")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "not UTF-8 text" in err and "Traceback" not in err
    # The session went on to the next questions after the bad line.
    assert b"[2] " in done.stdout and b"[3] " in done.stdout


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_drill_notes_bytes_that_are_not_utf8_and_goes_on(bad: bytes, store_home: Path) -> None:
    done = attnquiz(store_home, "drill", "15", script=bad + b":skip\n")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "not UTF-8 text" in err and "Traceback" not in err


# A terminal whose locale says ASCII: the C locale with Python's UTF-8 mode off, or an explicit
# ASCII encoding for the standard streams.
ASCII_LOCALES = [
    {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": None},
    {"PYTHONIOENCODING": "ascii"},
]


def in_locale(home: Path, variables: dict[str, str | None], *args: str, script: bytes = b""):
    env = {**os.environ, "ATTNQUIZ_HOME": str(home)}
    for name, value in variables.items():
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return subprocess.run(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        input=script,
        capture_output=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize("variables", ASCII_LOCALES, ids=["C-locale", "PYTHONIOENCODING=ascii"])
def test_an_ascii_locale_prints_every_command_and_saves_every_answer(
    variables: dict[str, str | None], store_home: Path
) -> None:
    # Output the locale cannot encode (θ, √, box lines) is shown escaped, never an internal
    # error; typed UTF-8 (√d_k) is read as what it says.
    for args in (["stats", "15"], ["list", "15"], ["check", "15", "std-dot", "--answer", "√d_k"]):
        done = in_locale(store_home, variables, *args)
        assert done.returncode == 0, (args, done.stderr.decode())
    done = in_locale(store_home, variables, "quiz", "15", script="√d_k\n3\n".encode() * 12)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "internal error" not in err and "not UTF-8" not in err
    assert "saved" in done.stdout.decode() or "reviewed" in done.stdout.decode()
    stats = in_locale(store_home, variables, "stats", "15", "--json")
    assert json.loads(stats.stdout)["reviews"] > 0, stats.stderr.decode()


@pytest.mark.parametrize(("columns", "lines"), [("80", "3"), ("1", "1"), ("200", "8")])
def test_stats_draws_its_charts_in_a_terminal_of_any_size(
    columns: str, lines: str, store_home: Path
) -> None:
    # The charts have their own size; a short terminal (a small pane) once made the chart
    # library abort the whole process (SIGABRT, no message) as it shrank them to fit.
    answered = in_locale(store_home, {}, "quiz", "demo", script=b"3\n1\n8\n")
    assert answered.returncode == 0, answered.stderr.decode()
    done = in_locale(store_home, {"COLUMNS": columns, "LINES": lines}, "stats", "demo")
    assert done.returncode == 0, done.stderr.decode()[-400:]
    if columns != "1":  # one column: rich sets every character on a line of its own
        assert "today" in done.stdout.decode()  # the forecast chart's first day
