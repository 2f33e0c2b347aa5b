"""Hostile bank and drill files: deep nesting of every YAML style, and files far too large.

Each gets exit 2 and one `PATH:LINE:` message, from `lint` and from the commands that load the
store's own sets (`list`, `quiz`), without a crash of the YAML composer, a RecursionError, or
reading more than the size limit. The commands run in a real process where the process is the
point (its exit code after a would-be segmentation fault, its peak memory).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bank.yaml_source import MAX_NESTING
from engine.cli import main

HEADER = "format_version: 1\nset: demo\ntitle: Demo\nitems:\n"
_LEVELS = 3000

# A few kB each: every way YAML has to nest, alone and mixed.
NESTED = {
    "flow sequences": HEADER + "  - " + "[" * _LEVELS + "]" * _LEVELS + "\n",
    "flow sequences left open": HEADER + "  - " + "[" * _LEVELS + "\n",
    "flow maps": HEADER + "  - " + "{a: " * _LEVELS + "1" + "}" * _LEVELS + "\n",
    "block sequences": HEADER + "  - " + "- " * _LEVELS + "x\n",
    "block maps": HEADER
    + "  - id: deep\n"
    + "".join(" " * (4 + i) + f"k{i}:\n" for i in range(120))
    + " " * 124
    + "end\n",
    "complex keys": HEADER + "  - " + "? " * _LEVELS + "x\n",
    "flow inside block": HEADER + "  - " + "a: [" * _LEVELS + "\n",
}
# The peak is read from /proc/self/status (VmHWM, this program's own address space since its
# exec): ru_maxrss would carry over the peak of the forked pytest process it was started from.
_CLI = "import sys; from engine.cli import main; code = main(sys.argv[1:]); " + (
    "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]; "
    "print('MAXRSS', peak, file=sys.stderr); sys.exit(code)"
)


def run_cli(args: list[str], **env: str) -> tuple[int, str, int]:
    """Exit code, stderr and peak resident memory (kB) of `attnquiz ARGS` in its own process."""
    process = subprocess.run(
        [sys.executable, "-c", _CLI, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env={**os.environ, **env},
    )
    err = process.stderr
    peak = int(err.rsplit("MAXRSS", 1)[1]) if "MAXRSS" in err else -1
    return process.returncode, err.split("MAXRSS")[0], peak


@pytest.mark.parametrize("style", sorted(NESTED))
def test_deep_nesting_of_every_style_is_one_line_with_path_and_line(
    style: str, tmp_path: Path, capsys
) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(NESTED[style], encoding="utf-8")
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    # The line where the level past the bound opens: one line per level for block maps.
    line = 5 + MAX_NESTING - 1 if style == "block maps" else 5
    assert f"{path}:{line}: nested more than {MAX_NESTING} levels deep" in err
    assert "Traceback" not in err and "RecursionError" not in err


def test_deep_nesting_in_a_drill_file_is_reported_the_same_way(tmp_path: Path, capsys) -> None:
    path = tmp_path / "drills" / "demo.yaml"
    path.parent.mkdir()
    path.write_text("format_version: 1\nset: demo\ndrills:\n  - " + "[" * _LEVELS + "\n")
    assert main(["lint", str(path)]) == 2
    assert f"{path}:4: nested more than {MAX_NESTING} levels deep" in capsys.readouterr().err


def test_nesting_within_the_bound_still_loads(tmp_path: Path, capsys) -> None:
    # A real item with a value nested to just under the bound: unknown field, not "nested".
    value = "[" * (MAX_NESTING - 3) + "]" * (MAX_NESTING - 3)
    text = HEADER + f"  - id: one\n    kind: recall\n    prompt: P\n    back: B\n    x: {value}\n"
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(text)
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown field 'x'" in err and "nested" not in err


def test_the_worst_nesting_does_not_crash_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    # 100,000 levels: enough to overflow the C stack of a recursive composer.
    path.write_text(HEADER + "  - " + "[" * 100_000 + "\n")
    code, err, _ = run_cli(["lint", str(path)])
    assert code == 2, err
    assert f"{path}:5: nested more than" in err


def test_a_huge_sparse_bank_is_refused_by_its_size_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    with open(path, "wb") as bank:
        bank.write(HEADER.encode())
        bank.truncate(3 * 2**30)
    code, err, peak_kb = run_cli(["lint", str(path)])
    assert code == 2
    assert f"{path}:1: file is larger than 2 MB" in err
    assert 0 < peak_kb < 400_000  # far below the 3 GB a whole read would hold


def test_a_device_or_a_pipe_given_as_a_bank_is_refused_without_blocking(
    tmp_path: Path, capsys
) -> None:
    from engine.bank.yaml_source import read_yaml

    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        doc = read_yaml(path)
        assert doc.value is None
        assert doc.problems == [f"{path}:1: cannot read the file: not a regular file"]


@pytest.mark.slow  # real processes
@pytest.mark.parametrize("command", [["list", "15"], ["quiz", "15"]])
def test_a_hostile_set_in_the_store_folder_is_reported_not_fatal(
    command: list[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    (store / "quizzes").mkdir(parents=True)
    hostile = store / "quizzes" / "15.yaml"
    hostile.write_text("format_version: 1\nset: '15'\nitems:\n  - " + "{a: " * 50_000 + "\n")
    code, err, _ = run_cli(command, ATTNQUIZ_HOME=str(store))
    assert code == 2, err
    assert f"{hostile}:4: nested more than {MAX_NESTING} levels deep" in err
    assert "Traceback" not in err


@pytest.mark.slow  # a real process
def test_a_hostile_file_of_another_set_leaves_the_others_alone(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "quizzes").mkdir(parents=True)
    (store / "quizzes" / "evil.yaml").write_text("[" * 100_000)
    with open(store / "quizzes" / "huge.yaml", "wb") as huge:
        huge.truncate(3 * 2**30)
    code, err, _ = run_cli(["list", "15"], ATTNQUIZ_HOME=str(store))
    assert code == 0, err


def test_reading_past_the_time_bound_stops_with_path_and_line(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bound already spent: the first check of the clock stops the reading, as a slow one would.
    monkeypatch.setattr("engine.bank.yaml_source.PARSE_SECONDS", -1.0)
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(HEADER + "  - id: one\n")
    assert main(["lint", str(path)]) == 2
    assert f"{path}:1: reading took more than -1 s; simplify the file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        # Python's own words for it told the author to call sys.set_int_max_str_digits().
        ("9" * 5000, "a number of 5000 digits is too long to read; shorten it, or quote it"),
        # "format_version '1' is not supported (this attnquiz reads 1)" read as a riddle.
        (None, "format_version is the text '1'; write it as a number: format_version: 1"),
    ],
    ids=["a 5000-digit number", "the version as text"],
)
def test_an_odd_value_is_told_in_the_files_own_terms(
    value: str | None, problem: str, tmp_path: Path, capsys
) -> None:
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    version = "1" if value is not None else "'1'"
    answer = value if value is not None else "A"
    path.write_text(
        f"format_version: {version}\nset: demo\ntitle: Demo\nitems:\n"
        f"  - id: a\n    kind: recall\n    prompt: P?\n    back: {answer}\n"
    )
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert problem in err, err
    assert "sys.set_int_max_str_digits" not in err


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f"], ids=["NUL", "ESC", "DEL"])
def test_a_control_character_is_one_line_at_its_own_line(char: str, tmp_path: Path, capsys) -> None:
    # It was reported at line 1, over two lines: `... not allowed` then
    # `  in "<unicode string>", position 84`.
    path = tmp_path / "quizzes" / "demo.yaml"
    path.parent.mkdir()
    path.write_text(
        "format_version: 1\nset: demo\ntitle: Demo\nitems:\n"
        f"  - id: a\n    kind: recall\n    prompt: P{char}?\n    back: A\n"
    )
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    (line,) = [text for text in err.splitlines() if text.startswith(str(path))]
    assert line.startswith(f"{path}:7: ")
    assert f"U+{ord(char):04X}" in line and "<unicode string>" not in err
