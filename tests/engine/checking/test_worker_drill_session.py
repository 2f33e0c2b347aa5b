"""A drill session starts its checking worker before the first line, and ends it with itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.checking.test_worker_lifecycle import child_pids, is_gone

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="uses Linux process tools")


@linux_only
def test_the_worker_is_warm_before_the_first_line_and_ctrl_c_ends_it(store_home: Path) -> None:
    env = {**os.environ, "ATTNQUIZ_HOME": str(store_home), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "drill", "15", "var-scaled"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("step 1/"):
                break
        workers = child_pids(proc.pid)
        assert len(workers) == 1  # started with the command, before any line was checked
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130
        assert is_gone(workers[0])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
