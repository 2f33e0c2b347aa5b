"""An answer that cannot be read is not graded: the learner types again and nothing is logged.

Scripted mode (docs/spec.md): a note on stderr says what could not be read, the next line answers
the same question, and after three unreadable lines in a row the question counts as Again.
Interactive mode is driven through a real pseudo-terminal, as a learner at a terminal uses it.
"""

from __future__ import annotations

import os
import pty
import select
import sys
from pathlib import Path

import pytest

from tests.engine.cli.conftest import COMMAND, cli_env
from tests.engine.cli.conftest import run as run
from tests.engine.cli.test_scripted_session import reviews

# The demo bank: recall-one (self-rated), choice-axis, number-std (8), ...
BEFORE_NUMBER = "3\na\n"


def test_an_unreadable_line_is_not_graded_and_the_next_line_answers_again(
    run, store_home: Path
) -> None:
    result = run("demo", input=BEFORE_NUMBER + "8 ((\n8\n")
    assert result.returncode == 0, result.stderr
    assert "could not read this" in result.stderr
    assert "the next line answers this question again" in result.stderr
    assert reviews(store_home) == [
        ("recall-one", 3, "3"),
        ("choice-axis", 3, "a"),
        ("number-std", 3, "8"),
    ]


def test_three_unreadable_lines_in_a_row_count_as_again(run, store_home: Path) -> None:
    result = run("demo", input=BEFORE_NUMBER + "zzz\n8 ((\n\x01\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("the next line answers this question again") == 2
    assert "3 unreadable answers in a row; counted as again" in result.stderr
    assert reviews(store_home)[-1][:2] == ("number-std", 1)


def test_the_message_names_what_could_not_be_read_once(run, store_home: Path) -> None:
    result = run("demo", input=BEFORE_NUMBER + "zzz\n")
    notes = [line for line in result.stderr.splitlines() if "could not read" in line]
    assert notes and all(line.count("could not read this") == 1 for line in notes)
    assert "`zzz`" in notes[0]
    assert "..." not in notes[0]


class Terminal:
    """A child process on a pseudo-terminal; `expect` reads until a text appears."""

    def __init__(self, home: Path, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the real command, on the terminal
            env = cli_env(home)
            env["COLUMNS"], env["LINES"], env["TERM"] = "100", "40", "dumb"
            os.execvpe(sys.executable, [*COMMAND, *args], env)
        self.seen = ""

    def expect(self, text: str, limit_s: float = 90.0) -> str:
        # The limit only stops a broken test from hanging; nothing here depends on timing.
        while text not in self.seen:
            ready, _, _ = select.select([self.fd], [], [], limit_s)
            if not ready:
                raise AssertionError(f"no {text!r} on the terminal; it shows:\n{self.seen}")
            try:
                chunk = os.read(self.fd, 4096).decode("utf-8", "replace")
            except OSError:
                chunk = ""
            if not chunk:
                raise AssertionError(f"the program ended before {text!r}:\n{self.seen}")
            self.seen += chunk
        at = self.seen.index(text) + len(text)
        shown, self.seen = self.seen[:at], self.seen[at:]
        return shown

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\r").encode())

    def close(self) -> int:
        try:
            os.close(self.fd)
        finally:
            _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


@pytest.mark.slow  # a real process at a pseudo-terminal
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_at_a_terminal_an_unreadable_answer_is_asked_again(store_home: Path) -> None:
    terminal = Terminal(store_home, "demo")
    try:
        terminal.expect("Enter to reveal")
        terminal.send("")
        terminal.expect("rate 1-4")
        terminal.send("3")
        terminal.expect("your answer")
        terminal.send("a")
        terminal.expect("rate 1-4")
        terminal.send("")
        terminal.expect("your answer")
        terminal.send("zzz")
        shown = terminal.expect("your answer")
        assert "could not read this" in shown and "`zzz`" in shown
        assert "nothing was recorded; type the answer again" in shown
        assert "answer:" not in shown  # not revealed: the question is still open
        terminal.send("8")
        shown = terminal.expect("rate 1-4")
        assert "✓ correct" in shown
        terminal.send("")
        terminal.expect("your answer")
        terminal.send(":quit")
    finally:
        terminal.close()
    assert reviews(store_home) == [
        ("recall-one", 3, None),
        ("choice-axis", 3, "a"),
        ("number-std", 3, "8"),
    ]


def test_check_answers_json_for_an_unreadable_answer(run) -> None:
    import json

    # "8 \udced" is how the interpreter hands over an argument whose bytes are not UTF-8.
    for answer in ["9" * 5000, "1" * 4400, "8 \udced", "zzz"]:
        result = run("check", "demo", "number-std", "--answer", answer, "--json")
        assert result.returncode == 1, result.stderr
        verdict = json.loads(result.stdout)
        assert verdict["valid"] is False and verdict["correct"] is False
        assert verdict["feedback"].startswith("could not read this: ")
        assert verdict["feedback"].count("could not read this") == 1
