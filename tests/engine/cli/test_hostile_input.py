"""Standard input that is not UTF-8 text: each bad line is noted, and the session goes on; an
ASCII locale; a terminal of any size.

A real process, so that the standard streams are the interpreter's own, decoded and encoded as
it does for the locale (and a crash of a library is the process's, not the test run's).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run

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


def test_a_quiz_notes_bytes_that_are_not_utf8_and_goes_on(store_home: Path) -> None:
    # Each bad line answers a question (a rating, an option, an expression), and the next line
    # goes on: answers the same question again, or the next.
    first, second, third = BAD_LINES
    script = first + b"3\n" + second + b"2\n" + third + b"3\n2\n"
    done = attnquiz(store_home, "quiz", "demo", script=script)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "Traceback" not in err
    for bad in BAD_LINES:
        assert f"not UTF-8 text ({undecodable(bad)})" in err, bad
    # The session went on past every bad line, to the sixth question.
    for number in range(2, 7):
        assert f"[{number}] ".encode() in done.stdout


def test_a_drill_notes_bytes_that_are_not_utf8_and_goes_on(store_home: Path) -> None:
    done = attnquiz(store_home, "drill", "15", script=b"".join(BAD_LINES) + b":skip\n")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "Traceback" not in err
    for bad in BAD_LINES:
        assert f"not UTF-8 text ({undecodable(bad)})" in err, bad
    # A bad line is an unreadable step, asked again: the drill went on to step 2 and 3.
    assert "step 3/" in done.stdout.decode()


def undecodable(bad: bytes) -> str:
    """The bytes of `bad` that are not UTF-8, as the note shows them."""
    text = bad.decode("utf-8", "surrogateescape")
    return " ".join(f"0x{ord(c) - 0xDC00:02x}" for c in text if "\udc80" <= c <= "\udcff")


# A terminal whose locale says ASCII: the C locale with Python's UTF-8 mode off, or an explicit
# ASCII encoding for the standard streams.
ASCII_LOCALES = [
    {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": None},
    {"PYTHONIOENCODING": "ascii"},
]


def in_locale(home: Path, variables: dict[str, str | None], *args: str, script: bytes = b""):
    return subprocess.run(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        input=script,
        capture_output=True,
        timeout=120,
        env=locale_env(home, variables),
    )


def locale_env(home: Path, variables: dict[str, str | None]) -> dict[str, str]:
    env = {**os.environ, "ATTNQUIZ_HOME": str(home)}
    for name, value in variables.items():
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return env


# Several commands, one after the other, in one process (`;` between them): each meets the
# standard streams as a process of its own meets them (the encoding and error handler the
# interpreter chose for the locale), and its output on both streams ends at a line `MARK code`.
MARK = "--- attnquiz exited"
SEVERAL = f"""
import io, sys
from engine.cli import main
first = [(s, s.encoding, s.errors) for s in (sys.stdin, sys.stdout, sys.stderr)]
commands = [[]]
for arg in sys.argv[1:]:
    commands.append([]) if arg == ";" else commands[-1].append(arg)
for command in commands:
    for stream, encoding, errors in first:
        try:
            stream.reconfigure(encoding=encoding, errors=errors)
        except io.UnsupportedOperation:  # standard input, once read, stays as it was
            pass
    code = main(command)
    for stream in (sys.stdout, sys.stderr):
        print("\\n{MARK}", code, file=stream, flush=True)
"""


def in_locale_one_process(
    home: Path, variables: dict[str, str | None], commands: list[list[str]], script: bytes
) -> list[tuple[int, str, str]]:
    """Exit code, stdout and stderr of each command, run in one process under `variables`."""
    args = [arg for command in commands for arg in (";", *command)][1:]
    done = subprocess.run(
        [sys.executable, "-c", SEVERAL, *args],
        input=script,
        capture_output=True,
        timeout=240,
        env=locale_env(home, variables),
    )
    # Each stream: output, MARK code, output, MARK code, ..., and nothing after the last mark.
    out, err = (re.split(rf"\n{MARK} (-?\d+)\n", s.decode()) for s in (done.stdout, done.stderr))
    assert done.returncode == 0 and len(out) == len(err) == 2 * len(commands) + 1, err
    assert out[-1] == err[-1] == "", err
    assert out[1::2] == err[1::2]
    return list(zip(map(int, out[1::2]), out[:-1:2], err[:-1:2], strict=True))


@pytest.mark.parametrize("variables", ASCII_LOCALES, ids=["C-locale", "PYTHONIOENCODING=ascii"])
def test_an_ascii_locale_prints_every_command_and_saves_every_answer(
    variables: dict[str, str | None], store_home: Path
) -> None:
    # Output the locale cannot encode (θ, √, box lines) is shown escaped, never an internal
    # error; typed UTF-8 (√d_k, as an argument and as a line of input) is read as what it says.
    commands = [
        ["stats", "15"],
        ["list", "15"],
        ["check", "15", "std-dot", "--answer", "√d_k"],
        ["quiz", "15"],  # the only one that reads standard input
        ["stats", "15", "--json"],
    ]
    script = "√d_k\n3\n".encode() * 12
    results = in_locale_one_process(store_home, variables, commands, script)
    for args, (code, _, err) in zip(commands, results, strict=True):
        assert code == 0, (args, err)
        assert "internal error" not in err, (args, err)
    _, quiz_out, quiz_err = results[3]
    assert "not UTF-8" not in quiz_err
    assert "saved" in quiz_out or "reviewed" in quiz_out
    _, stats_json, stats_err = results[4]
    assert json.loads(stats_json)["reviews"] > 0, stats_err


@pytest.mark.parametrize(("columns", "lines"), [("80", "3"), ("1", "1"), ("200", "8")])
def test_stats_draws_its_charts_in_a_terminal_of_any_size(
    columns: str, lines: str, store_home: Path, run: Run
) -> None:
    # The charts have their own size; a short terminal (a small pane) once made the chart
    # library abort the whole process (SIGABRT, no message) as it shrank them to fit: the
    # answers are given in this process, the charts drawn in a process of their own.
    answered = run("quiz", "demo", input="3\n1\n8\n")
    assert answered.returncode == 0, answered.stderr
    done = in_locale(store_home, {"COLUMNS": columns, "LINES": lines}, "stats", "demo")
    assert done.returncode == 0, done.stderr.decode()[-400:]
    if columns != "1":  # one column: rich sets every character on a line of its own
        assert "today" in done.stdout.decode()  # the forecast chart's first day
