"""Standard input that is not UTF-8 text: each bad line is noted, and the session goes on.

A real process, so that standard input is the interpreter's own, decoded as it decodes it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Every test starts a real process.
pytestmark = pytest.mark.slow

BAD_LINES = [b"\xff\xfe\n", b"d_\xc3\n", b"\xed\xa0\x80 surrogate\n"]


def attnquiz(home: Path, *args: str, script: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        input=script,
        capture_output=True,
        timeout=120,
        # Strict decoding, as Python does under a UTF-8 locale such as en_US.UTF-8.
        env={**os.environ, "ATTNQUIZ_HOME": str(home), "PYTHONIOENCODING": "utf-8:strict"},
    )


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_quiz_notes_bytes_that_are_not_utf8_and_goes_on(bad: bytes, store_home: Path) -> None:
    done = attnquiz(store_home, "quiz", "demo", script=bad + b"3\n2\n")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "not UTF-8 text" in err and "Traceback" not in err
    # The session went on to the next questions after the bad line.
    assert b"[2] " in done.stdout and b"[3] " in done.stdout


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_drill_notes_bytes_that_are_not_utf8_and_goes_on(bad: bytes, store_home: Path) -> None:
    done = attnquiz(store_home, "drill", "15", script=bad + b":skip\n")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "not UTF-8 text" in err and "Traceback" not in err
