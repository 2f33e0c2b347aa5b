"""Exit codes, messages, help and start-up cost of every command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import COMMANDS, main
from engine.exit_codes import EXIT_NEGATIVE


def test_check_json_has_exactly_the_spec_fields(capsys) -> None:
    assert main(["check", "demo", "expr-var", "--answer", "dk", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"item", "correct", "valid", "interpreted_as", "feedback"}
    assert out["item"] == "expr-var" and out["correct"] is True and out["valid"] is True


def test_check_a_wrong_answer_exits_1_with_the_mistake_message(capsys) -> None:
    assert main(["check", "demo", "expr-var", "--answer", "sqrt(d)", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["correct"] is False and "standard deviation" in out["feedback"]


def test_check_a_choice_by_letter(capsys) -> None:
    assert main(["check", "demo", "choice-axis", "--answer", "A"]) == 0
    assert main(["check", "demo", "choice-axis", "--answer", "2"]) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "demo", "nope", "--answer", "1"], "has no item 'nope'"),
        (["check", "nosuchset", "x", "--answer", "1"], "no question set 'nosuchset'"),
        (["check", "demo", "recall-one", "--answer", "1"], "self-rated"),
        (["quiz", "demo", "--tag", "nosuchtag"], "tag 'nosuchtag'"),
        (["quiz", "demo", "--retention", "2"], "--retention"),
        (["stats"], "Missing argument"),
        (["stats", "demo", "--bogus"], "No such option"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str, capsys) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


# A set's name is a name, never a path: `..` read the repository's own YAML files as a bank,
# `/tmp` every YAML file in /tmp; a name longer than the file system allows was an internal
# error (ENAMETOOLONG) in every command that opens a set.
NOT_SET_NAMES = ["..", ".", "/tmp", "demo/..", "../quizzes/demo", "", "a" * 300]


@pytest.mark.parametrize("name", NOT_SET_NAMES)
@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["quiz"],
        ["stats"],
        ["drill"],
        ["drill", "--timed"],
        ["drill", "--rapid"],
        ["exercises"],
        ["export", "--anki", "deck.apkg"],
        ["check", "x", "--answer", "1"],
    ],
)
def test_a_set_name_that_is_a_path_is_no_set(
    name: str, command: list[str], tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [command[0], name, *command[1:]]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("attnquiz: error: ") and err.count("\n") == 1, err
    said = (f"no question set {name!r}", f"no drills for set {name!r}", f"set {name} has no")
    assert any(words in err for words in said), err


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "a" * 300 + ".yaml"],
        ["export", "demo", "--anki", "a" * 300 + ".apkg"],
        ["stats", "demo", "--data-dir", "a" * 300],
        ["submit", "a" * 300 + ".py"],
    ],
    ids=["lint", "export", "data-dir", "submit"],
)
def test_a_file_name_too_long_for_the_file_system_is_bad_input(
    args: list[str], tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "too long" in err and err.count("\n") == 1 and "internal error" not in err, err


@pytest.mark.parametrize(
    "start",
    ["9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+00:00", "1969-12-31T23:00:00+00:00"],
)
def test_a_clock_started_where_no_review_can_be_stored_is_bad_input(
    start: str, store_home: Path, monkeypatch, capsys
) -> None:
    # ATTNQUIZ_NOW in the year 9999 was an internal error (dates past datetime's end); in the
    # year 1 a session stored due times before 1970, which the store check then calls damage:
    # every later command refused the store.
    from tests.conftest import run_cli

    monkeypatch.setenv("ATTNQUIZ_NOW", start)
    done = run_cli("quiz", "demo", input="3\n" * 10)
    assert done.returncode == 2 and "ATTNQUIZ_NOW" in done.stderr, done.stderr
    assert main(["stats", "demo"]) == 2
    monkeypatch.delenv("ATTNQUIZ_NOW")
    capsys.readouterr()
    assert main(["stats", "demo"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "answer",
    [
        "__import__('os').system('touch PWNED')",
        "().__class__.__bases__[0].__subclasses__()",
        "open('PWNED', 'w')",
        "9**9**9**9",
        "(" * 5000 + "d" + ")" * 5000,
        "exec('import os')",
    ],
)
def test_hostile_typed_answers_are_rejected_and_nothing_runs(
    answer: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "demo", "expr-var", "--answer", answer, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and out["feedback"]
    assert not (tmp_path / "PWNED").exists()


def test_every_command_has_help_with_an_example(capsys) -> None:
    for command in sorted(COMMANDS):
        assert main([command, "--help"]) == 0
        out = capsys.readouterr().out
        assert "Example:" in out, command


def test_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("attnquiz ")


def test_a_bare_set_name_runs_the_quiz(monkeypatch, capsys) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n"))
    assert main(["demo"]) == 0
    assert "[1] recall-one" in capsys.readouterr().out


HEAVY = "numpy", "sympy", "numba", "prompt_toolkit"
PROBE = """
import io, json, sys
from engine.cli import main
sys.stdin = io.StringIO({stdin!r})
code = main({args!r})
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
print("\\nPROBE " + json.dumps([code, heavy]), file=sys.stderr)
"""


def probe(args: list[str], store_home: Path, stdin: str = "") -> tuple[int, list[str]]:
    code = PROBE.format(args=args, heavy=HEAVY, stdin=stdin)
    env = {"ATTNQUIZ_HOME": str(store_home), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = [ln for ln in result.stderr.splitlines() if ln.startswith("PROBE ")][-1]
    status, heavy = json.loads(line[len("PROBE ") :])
    return status, heavy


@pytest.mark.slow
def test_help_imports_no_numpy_sympy_numba_or_prompt_toolkit(store_home: Path) -> None:
    assert probe(["--help"], store_home) == (0, [])
    assert probe(["quiz", "--help"], store_home) == (0, [])


@pytest.mark.slow
def test_the_first_question_appears_before_sympy_is_imported(store_home: Path) -> None:
    # The session ends at end of input, right after showing the first (self-rated) question.
    assert probe(["quiz", "demo"], store_home) == (0, [])
    assert probe(["stats", "demo"], store_home) == (0, [])
    assert probe(["list", "demo"], store_home) == (0, [])


@pytest.mark.slow
def test_a_scripted_clocked_drill_never_loads_prompt_toolkit(store_home: Path) -> None:
    # Standard input is not a terminal: the answers are read as lines, with no live countdown.
    for args in (["drill", "15", "--rapid", "--seed", "7"], ["drill", "15", "--timed"]):
        status, heavy = probe(args, store_home, stdin="(2, 3)\n")
        assert status == EXIT_NEGATIVE  # the answer was read and graded: not all right
        assert "prompt_toolkit" not in heavy
