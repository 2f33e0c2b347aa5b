"""The suite's time-out (tests/watchdog.py): one thread watches every test of a process, and a
test that outruns its time-out still ends the run with every thread's stack printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HANGING = """
import threading
import time

import pytest


def others() -> list[str]:
    return [t.name for t in threading.enumerate() if t is not threading.main_thread()]


def test_one_thread_watches_the_first_test():
    assert others() == ["attnquiz test time-out watchdog"]


def test_and_the_same_thread_the_next():
    assert others() == ["attnquiz test time-out watchdog"]


@pytest.mark.timeout(1)
def test_that_hangs():
    time.sleep(600)
"""


@pytest.mark.slow  # waits for a time-out
def test_a_hanging_test_is_stopped_with_its_stack_and_one_thread_watches_them_all(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_hanging.py").write_text(HANGING, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-p", "tests.watchdog", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, "-v", "-o", "timeout=300", "-o", "timeout_method=thread", "test_hanging.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "test_one_thread_watches_the_first_test PASSED" in out, out
    assert "test_and_the_same_thread_the_next PASSED" in out, out
    assert "Timeout" in out and "time.sleep(600)" in out, out  # the hung test's stack
