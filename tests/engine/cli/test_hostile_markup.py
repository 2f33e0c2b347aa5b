"""Markup and terminal escapes in text a learner or an author wrote are shown exactly as written.

Rich parses markup in every plain string it prints: `[/]` alone raises MarkupError, and valid
markup would turn into colours and terminal hyperlinks. Raw escape sequences would reach the
terminal too. Every command that shows such text (check, lint, the drills, submit) must print
the characters themselves, with control characters made visible.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from engine.cli import main

MARKUP = "[/] [bold red]LOUD[/bold red] [link=https://evil.example]click[/link] [red]"
ESCAPE = "\x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\\x1b[2J"
# Bidirectional overrides and isolates: a terminal that lays out bidi text would show what
# follows them reversed or moved ("Trojan Source"), so that the screen says what it does not.
BIDI = "\u202eevil\u202c \u2066x\u2069"
PAYLOAD = MARKUP + " " + ESCAPE + " " + BIDI
# How the payload appears: every character of the markup, each control as \xNN or \uNNNN.
SHOWN = MARKUP + " " + ESCAPE.replace("\x1b", "\\x1b") + " " + "\\u202eevil\\u202c \\u2066x\\u2069"


def _yaml_quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\x1b", "\\e") + '"'


BANK = f"""\
format_version: 1
set: demo
title: {_yaml_quoted(PAYLOAD)}
items:
  - id: pick
    kind: choice
    prompt: Pick one.
    options: [plain, {_yaml_quoted(PAYLOAD)}]
    answer: 2
  - id: var
    kind: expression
    prompt: Var(q·k)?
    answer: d_k
    positive: [d_k]
    mistakes:
      - answer: sqrt(d_k)
        message: {_yaml_quoted(PAYLOAD)}
"""


def _assert_literal(output: str) -> None:
    # Every character as written, in order; long lines may be wrapped to the terminal's width.
    assert "".join(SHOWN.split()) in "".join(output.split())
    assert "\x1b" not in output and "\u202e" not in output and "\u2066" not in output
    assert "MarkupError" not in output and "Traceback" not in output


@pytest.fixture
def demo_bank(store_home: Path) -> Path:
    path = store_home / "quizzes" / "demo.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BANK, encoding="utf-8")
    return path


def test_check_prints_an_authors_option_literally(demo_bank: Path, capsys) -> None:
    assert main(["check", "demo", "pick", "--answer", "1"]) == 1
    _assert_literal(capsys.readouterr().out)


def test_check_prints_a_mistakes_feedback_literally(demo_bank: Path, capsys) -> None:
    assert main(["check", "demo", "var", "--answer", "sqrt(d_k)"]) == 1
    _assert_literal(capsys.readouterr().out)


def test_check_answers_a_learners_markup_with_a_verdict(demo_bank: Path, capsys) -> None:
    code = main(["check", "demo", "var", "--answer", PAYLOAD])
    assert code == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "Traceback" not in out


def test_lint_prints_problems_naming_hostile_text_literally(tmp_path: Path, capsys) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    # A field whose name is the payload: lint names it in its message.
    path.write_text(BANK + f"    {_yaml_quoted(PAYLOAD)}: 1\n", encoding="utf-8")
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown field" in err
    assert "\x1b" not in err and "Traceback" not in err


def test_a_scripted_quiz_shows_an_authors_option_literally(demo_bank: Path, run) -> None:
    # Standard input from a file while the output goes to the terminal: escapes in the bank's
    # text must not clear the screen, set the title or write the clipboard.
    done = run("quiz", "demo", input="1\n2\nsqrt(d_k)\n")
    assert done.returncode == 0, done.stderr
    _assert_literal(done.stdout)
    assert "\x1b" not in done.stderr


@pytest.mark.parametrize("command", ["list", "stats"])
def test_list_and_stats_show_an_authors_title_literally(
    command: str, demo_bank: Path, capsys
) -> None:
    assert main([command, "demo"]) == 0
    out = capsys.readouterr().out
    assert "[/] [bold red]LOUD[/bold red]" in out
    assert "\x1b" not in out


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, color_system="truecolor", width=400), out


def test_a_derivation_drill_shows_its_authors_text_literally() -> None:
    from engine.drills.loader import load_drill_file
    from engine.drills.terminal import DrillTerminal

    root = Path(__file__).resolve().parents[3]
    drill = load_drill_file(root / "drills" / "15.yaml", "drills/15.yaml", set_name="15").drills[0]
    hostile = drill.model_copy(update={"title": MARKUP, "goal": PAYLOAD})
    console, out = _terminal()
    DrillTerminal(console=console).introduce(hostile, 1, 1)
    text = out.getvalue()
    assert MARKUP in text and ESCAPE.replace("\x1b", "\\x1b") in text
    assert "https://evil.example\x1b" not in text  # no terminal hyperlink was opened

    scripted = io.StringIO()
    DrillTerminal(out=scripted).introduce(hostile, 1, 1)
    _assert_literal(scripted.getvalue())


def test_the_timed_and_rapid_drills_show_their_titles_literally(store_home: Path) -> None:
    from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
    from engine.drills.rapid.view import InteractiveRapidFrontend

    found = rapid_drill_file("15", store_home)
    assert found is not None
    rapid = dataclasses.replace(load_rapid_drill(*found, "15"), title=PAYLOAD)
    console, out = _terminal()
    InteractiveRapidFrontend(console).begin(rapid, 3)
    assert SHOWN in out.getvalue()
    assert "evil.example\x1b" not in out.getvalue()

    from engine.drills.timed.view import InteractiveTimedFrontend

    # begin() reads the title, the set, the parts and the limit only.
    timed = SimpleNamespace(title=PAYLOAD, set_name="15", parts=[1, 2], limit_seconds=60)
    console, out = _terminal()
    InteractiveTimedFrontend(console).begin(timed)  # type: ignore[arg-type]
    assert SHOWN in out.getvalue()
    assert "evil.example\x1b" not in out.getvalue()


def test_submit_reports_an_exception_message_literally(tmp_path: Path, capsys) -> None:
    source = tmp_path / "mine.py"
    source.write_text(f"def attention(Q, K, V):\n    raise ValueError({PAYLOAD!r})\n")
    assert main(["submit", str(source), "--no-time"]) == 1
    _assert_literal(capsys.readouterr().out)


def _through_a_terminal(home: Path, args: list[str], typed: bytes = b"") -> tuple[int, str]:
    """Run attnquiz on a pseudo-terminal (rich renders for a real terminal there)."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    leader, follower = pty.openpty()
    env = {**os.environ, "ATTNQUIZ_HOME": str(home), "TERM": "xterm-256color", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
    )
    os.close(follower)
    if typed:
        os.write(leader, typed)
    seen = bytearray()
    stop = time.monotonic() + 60
    while time.monotonic() < stop:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    process.kill()
    code = process.wait()
    os.close(leader)
    return code, seen.decode("utf-8", "replace")


def test_on_a_terminal_markup_is_neither_styled_nor_linked(demo_bank: Path) -> None:
    code, screen = _through_a_terminal(demo_bank.parent.parent, ["list", "demo"])
    assert code == 0, screen
    assert "[/] [bold red]LOUD[/bold red]" in screen
    assert "\x1b]8;" not in screen  # no terminal hyperlink was written
    assert "\\x1b]8;;https://evil.example" in screen.replace("\r\n", "")
