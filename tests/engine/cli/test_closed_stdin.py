"""A command started with standard input closed (`attnquiz 15 <&-`, a cron job, a daemon): no
input is end of input, never an internal error. The process itself is the point, so a real one
runs, with file descriptor 0 closed before it starts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.exit_codes import EXIT_OK
from tests.engine.cli.conftest import COMMAND, cli_env


def _run_without_stdin(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args],
        preexec_fn=lambda: os.close(0),  # closed before attnquiz starts
        capture_output=True,
        text=True,
        env=cli_env(home),
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [("demo",), ("check", "demo", "expr-var", "-a", "d_k"), ("lint", "{home}/quizzes")],
)
def test_a_closed_standard_input_is_the_end_of_input(store_home: Path, args: tuple[str]) -> None:
    result = _run_without_stdin(store_home, *(a.format(home=store_home) for a in args))
    assert "internal error" not in result.stderr
    assert result.returncode == EXIT_OK, result.stderr
