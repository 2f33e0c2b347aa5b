"""Command-line conventions: --version, shell completion, NO_COLOR, 80 columns, an example in
every help text."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from engine.cli import COMMANDS
from tests.conftest import CliResult, run_cli

# Colour SGR parameters: 30-39 and 90-97 (foreground), 40-49 and 100-107 (background).
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")

HELP_PAGES = [[], *([name] for name in sorted(COMMANDS)), ["lab", "scaling"]]
MISSING_TRANSPOSE = str(
    Path(__file__).parents[2]
    / "attention_ref"
    / "submissions"
    / "pitfalls"
    / "missing_transpose.py"
)


def attnquiz(home: Path, *args: str, **env: str) -> CliResult:
    """The command in-process, in an 80-column world where colour is allowed unless `env` says
    otherwise."""
    environment: dict[str, str | None] = {"ATTNQUIZ_HOME": str(home), "NO_COLOR": None}
    environment.update({"COLUMNS": "80", **env})
    return run_cli(*args, env=environment)


def test_version_is_the_installed_distributions(store_home: Path) -> None:
    result = attnquiz(store_home, "--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"attnquiz {importlib.metadata.version('attnquiz')}"


@pytest.mark.parametrize("page", HELP_PAGES, ids=lambda p: " ".join(p) or "attnquiz")
def test_every_help_page_gives_an_example_and_fits_80_columns(
    store_home: Path, page: list[str]
) -> None:
    result = attnquiz(store_home, *page, "--help")
    assert result.returncode == 0, result.stderr
    assert "Example: attnquiz" in result.stdout
    too_wide = [line for line in result.stdout.splitlines() if len(line) > 80]
    assert not too_wide


def test_shell_completion_script_names_the_program(
    store_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--show-completion` takes no value: Typer asks shellingham for the shell this process was
    # started from, which depends on whoever runs the tests (none found: "Shell  not supported").
    # The shell is given here, so what is tested is the script attnquiz makes for it.
    import shellingham

    monkeypatch.setattr(shellingham, "detect_shell", lambda *_a, **_k: ("bash", "/bin/bash"))
    monkeypatch.delenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", raising=False)
    result = attnquiz(store_home, "--show-completion")
    assert result.returncode == 0, result.stderr
    assert "_attnquiz_completion" in result.stdout
    assert "complete" in result.stdout


@pytest.mark.parametrize(
    "args",
    [["--help"], ["submit", MISSING_TRANSPOSE, "--no-time"]],
    ids=["help", "submit"],
)
def test_no_color_removes_colour_even_when_colour_is_forced(
    store_home: Path, args: list[str]
) -> None:
    coloured = attnquiz(store_home, *args, FORCE_COLOR="1")
    assert coloured.returncode in (0, 1), coloured.stderr
    # The check below is only meaningful if this output is coloured at all.
    assert COLOUR.search(coloured.stdout)
    plain = attnquiz(store_home, *args, FORCE_COLOR="1", NO_COLOR="1")
    assert plain.returncode == coloured.returncode, plain.stderr
    assert not COLOUR.search(plain.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["list", "15"],
        ["stats", "15"],
        ["check", "15", "var-dot", "--answer", "d_k/2"],
        ["submit", MISSING_TRANSPOSE, "--no-time"],
    ],
    ids=["list", "stats", "check", "submit"],
)
def test_output_fits_an_80_column_terminal(store_home: Path, args: list[str]) -> None:
    result = attnquiz(store_home, *args, NO_COLOR="1")
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.strip()
    assert not [line for line in result.stdout.splitlines() if len(line) > 80]


def test_a_scripted_session_over_many_kinds_of_card_fits_80_columns(store_home: Path) -> None:
    result = run_cli("15", "--new", "80", input="3\n" * 80, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("rated ") >= 80
    assert not [line for line in result.stdout.splitlines() if len(line) > 80]
