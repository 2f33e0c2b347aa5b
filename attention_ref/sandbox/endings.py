"""How a sandbox ends: what killed the child, in the learner's words, and killing what is left.

A child that dies mid-call is described from the supervisor's note (a signal or an exit code)
and the tail of its stderr: SIGXCPU is its CPU limit, an allocation failure is its memory limit,
any other signal is a crash. At the end every process the sandbox started is killed: the whole
process group, and every process of the run's private uid (or of its session when not root).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from typing import Any

import attention_ref.sandbox.processes as processes
from attention_ref.sandbox.output import visible_controls
from attention_ref.sandbox.results import Status
from attention_ref.sandbox.template import SandboxProcess

_MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc")
_MAX_ERROR = 500


def one_line(text: object) -> str:
    """`text` as one printable line of at most 500 characters, for an error message."""
    line = visible_controls(" ".join(str(text).split()))  # ESC shown as \x1b, as written
    if not line.isprintable():  # most messages are: no need to look at each character
        line = "".join(c if c.isprintable() else "?" for c in line)
    return line if len(line) <= _MAX_ERROR else line[: _MAX_ERROR - 3] + "..."


def describe_death(
    note: dict[str, Any], stderr_tail: str, seconds_per_call: float, during: str
) -> tuple[Status, str]:
    """The status and message for a child that ended `during` something, from its note."""
    number, code = note.get("signal"), note.get("exit_code")
    if isinstance(number, int) and number > 0:
        if number == signal.SIGXCPU:
            return (
                "timeout",
                f"used more than its CPU time ({seconds_per_call:g} s) during {during}",
            )
        if any(word in stderr_tail for word in _MEMORY_WORDS):
            return "memory", f"ran out of memory during {during}"
        return "crash", f"killed by {processes.describe_signal(number)} during {during}"
    if isinstance(code, int):
        return "error", f"the process exited with code {code} during {during}"
    return "crash", f"the sandbox ended without a status during {during}"


def kill_everything(
    process: SandboxProcess, uid: int | None, members: Callable[[], list[int]] | None = None
) -> None:
    """SIGKILL the process group and every process of the private uid (or the session); reap.
    `members`: a cheap list of the sandbox's processes, killed first (its cgroup's)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    # The first process itself too, should it not lead its own group yet. Its pid is still
    # its own: it is not reaped before `process.wait()` below.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(process.pid, signal.SIGKILL)
    if uid is not None and uid not in (0, os.getuid()):
        processes.kill_until_gone(lambda: processes.processes_of_uid(uid), first=members)
    else:
        session = process.pid
        processes.kill_until_gone(lambda: processes.processes_in_session(session), first=members)
    process.wait()
