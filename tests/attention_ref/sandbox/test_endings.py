"""How a sandbox's end is described to the learner, and a failed start leaves no folder behind."""

from __future__ import annotations

import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

import attention_ref.sandbox.processes as processes
from attention_ref.sandbox import launch
from attention_ref.sandbox.endings import describe_death, one_line


def test_the_cpu_limit_signal_is_a_timeout() -> None:
    status, message = describe_death({"signal": int(signal.SIGXCPU)}, "", 2.0, "the call")
    assert status == "timeout"
    assert message == "used more than its CPU time (2 s) during the call"


@pytest.mark.parametrize("words", ["MemoryError", "std::bad_alloc", "Cannot allocate memory"])
def test_a_kill_after_an_allocation_failure_is_the_memory_limit(words: str) -> None:
    note = {"signal": int(signal.SIGKILL)}
    status, message = describe_death(note, f"Traceback ...\n{words}\n", 2.0, "the import")
    assert (status, message) == ("memory", "ran out of memory during the import")


def test_any_other_signal_is_a_crash_named_by_its_signal() -> None:
    status, message = describe_death({"signal": int(signal.SIGSEGV)}, "", 2.0, "the call")
    assert status == "crash" and "SIGSEGV" in message and message.endswith("during the call")


def test_an_exit_code_is_an_error_and_no_status_is_a_crash() -> None:
    assert describe_death({"exit_code": 3}, "", 2.0, "the call") == (
        "error",
        "the process exited with code 3 during the call",
    )
    assert describe_death({}, "", 2.0, "the call")[0] == "crash"
    assert describe_death({"signal": "9"}, "", 2.0, "the call")[0] == "crash"


def test_an_error_message_is_one_printable_line_of_bounded_length() -> None:
    assert one_line("a\n  b\tc\x1b[31m") == "a b c\\x1b[31m"  # controls shown, not obeyed
    long = one_line("x" * 10_000)
    assert len(long) == 500 and long.endswith("...")


def test_a_workdir_that_cannot_be_prepared_is_removed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    monkeypatch.setattr(launch.os, "geteuid", lambda: 1000)  # as a user: no chown, no /tmp

    def refuse(self: Path, data: bytes) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_bytes", refuse)
    with pytest.raises(OSError, match="disk full"):
        launch.prepare_workdir(tmp_path / "mine.py", b"def attention(): pass\n")
    assert list(base.iterdir()) == []


def test_the_cheap_list_is_killed_empty_before_the_one_scan_that_proves_none_is_left() -> None:
    # The sandbox's cgroup lists its processes for a read of one file; a scan of every process
    # made while the killed are still exiting would find them and have to be made again.
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    scans = []

    def alive() -> list[int]:
        return [] if process.poll() is not None else [process.pid]

    def scan() -> list[int]:
        scans.append(alive())
        return scans[-1]

    assert processes.kill_until_gone(scan, first=alive)
    assert process.returncode == -signal.SIGKILL
    assert scans == [[]]  # one scan, made once the listed process was gone
