"""Standard output closed under attnquiz (`attnquiz stats 15 | head -1`, a `tee` that died).

What was printed no longer reaches anyone, so the command ends quietly with exit 0 (as for
any broken pipe, never 1, the exit of a wrong answer), and an answer already graded when the
output broke is still saved.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.schedule import Scheduling
from engine.session import ReviewSession
from engine.store import open_store
from engine.ui.loop import run_review
from engine.ui.scripted import ScriptedFrontend
from tests.conftest import warm_checker

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.slow  # real processes: the closed pipe is the point
@pytest.mark.parametrize(
    "args", [["stats", "demo"], ["list", "demo"], ["exercises", "15"], ["--help"]], ids=str
)
def test_a_closed_standard_output_ends_the_command_quietly_with_exit_0(
    args: list[str], store_home: Path
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "100"},
    )
    with process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before anything is written: every write finds it closed
        err = process.stderr.read().decode()
        assert process.wait(timeout=120) == 0, err
    assert err == ""


class _ClosedAfterGrading(io.StringIO):
    """An output that breaks once the answers on standard input have been read."""

    def __init__(self, stdin: io.StringIO) -> None:
        super().__init__()
        self.stdin = stdin

    def write(self, text: str) -> int:
        if self.stdin.tell() == len(self.stdin.getvalue()):
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_an_answer_graded_before_the_output_broke_is_saved(store_home: Path) -> None:
    store = open_store(store_home)
    session = ReviewSession(
        store,
        open_set("demo", store_home),
        Scheduling(fuzz=False),
        lambda: NOW,
        new_per_day=2,
        checker=warm_checker(),
    )
    # recall-one rated Good, then choice-axis answered (option 1) and graded: its verdict line
    # is the first write that finds the output closed.
    stdin = io.StringIO("3\n1\n")
    frontend = ScriptedFrontend(stdin, _ClosedAfterGrading(stdin), io.StringIO())
    with pytest.raises(BrokenPipeError):
        run_review(session, frontend)
    logged = store.db.execute("SELECT item_id FROM reviews ORDER BY id").fetchall()
    assert [row[0] for row in logged] == ["recall-one", "choice-axis"]
