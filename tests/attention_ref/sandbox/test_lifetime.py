"""However grading ends, nothing the sandbox started survives it, and its folder is removed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from attention_ref.sandbox import Sandbox
from attention_ref.sandbox.processes import processes_of_uid

from .conftest import HOSTILE, LIMITS, assert_nothing_left, inputs, needs_root

# Real graders killed with SIGKILL, and their sandboxes swept.
pytestmark = pytest.mark.slow


def test_an_exception_in_the_grader_still_kills_everything() -> None:
    box = Sandbox(HOSTILE / "background_process.py", "attention", LIMITS)
    with pytest.raises(KeyboardInterrupt), box:
        assert box.call(*inputs()).status == "ok"
        workdir = box._workdir
        raise KeyboardInterrupt  # as if the learner pressed Ctrl-C while grading
    assert_nothing_left(box)
    assert workdir is not None and not workdir.exists()


@needs_root
def test_a_grader_killed_by_sigkill_takes_the_sandbox_with_it(tmp_path: Path) -> None:
    script = tmp_path / "grader.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os
            import numpy as np
            from pathlib import Path
            from attention_ref.sandbox import Sandbox, Limits

            box = Sandbox(Path({str(HOSTILE / "background_process.py")!r}), "attention",
                          Limits(seconds_per_call=5))
            box.__enter__()
            assert box.call(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))).status == "ok"
            print(box.uid, box._workdir, flush=True)
            os.kill(os.getpid(), 9)
            """
        )
    )
    grader = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60
    )
    assert grader.returncode == -9, grader.stderr
    uid_text, workdir_text = grader.stdout.split()
    uid, workdir = int(uid_text), Path(workdir_text)
    stop = time.monotonic() + 5
    while (processes_of_uid(uid) or workdir.exists()) and time.monotonic() < stop:
        time.sleep(0.05)
    assert processes_of_uid(uid) == []
    assert not workdir.exists()
    assert uid != os.getuid()
