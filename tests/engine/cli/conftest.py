"""Running the real command in a subprocess, where the process itself is the point: Ctrl-C,
kill -9, several processes at once. Everything else runs in-process through `run`
(tests/conftest.py), which is re-exported here for the modules that import it from here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run  # noqa: F401  (the in-process runner, for importers)

COMMAND = [sys.executable, "-m", "engine.cli"]


def cli_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"ATTNQUIZ_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "100"})
    return env


@pytest.fixture
def spawn(store_home: Path):
    procs: list[subprocess.Popen[str]] = []

    def spawn(*args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [*COMMAND, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=cli_env(store_home),
        )
        procs.append(proc)
        return proc

    yield spawn
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                stream.close()


def read_until(proc: subprocess.Popen[str], prefix: str) -> list[str]:
    """Read output lines until one starts with `prefix` (blocking; no sleeps, no timing)."""
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith(prefix):
            return lines
    raise AssertionError(f"output ended before {prefix!r}: {''.join(lines)}")
