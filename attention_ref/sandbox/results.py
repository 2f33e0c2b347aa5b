"""What the parent learns from a sandbox: the outcome of each call and a report on the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "error", "crash", "timeout", "memory"]
# Statuses after which the sandboxed process is gone; later calls repeat the same result.
FATAL: frozenset[str] = frozenset({"crash", "timeout", "memory"})


@dataclass(frozen=True)
class CallResult:
    """One call of the submitted function.

    `value` (status "ok" only) is a NumPy array, or a tuple of arrays (0-d items become NumPy
    scalars) when the function returned a tuple. `error` is one line such as
    "ZeroDivisionError: division by zero (line 7)". `seconds` is the parent's wall-clock time
    from the first byte of the request to the last byte of the reply: it includes moving the
    arrays both ways and converting the result, not the start of the process or the import.
    `peak_bytes`, when the call was measured, is how far the worker's resident memory rose
    above its size before the call (None: not measured, or not measurable here).
    """

    status: Status
    value: Any | None
    error: str | None
    seconds: float | None
    peak_bytes: int | None = None


@dataclass(frozen=True)
class SandboxReport:
    """How the submission was confined, what it printed (the tails), and how its import went.

    `isolation` maps each promise ("landlock", "network", "user", "processes", ...) to what
    was actually in force; a value starting with "unavailable" means that layer is missing.
    The tails are the last `max_output_bytes` of each stream, decoded leniently, with terminal
    control characters made visible so printed text cannot redraw the grader's screen.
    """

    isolation: dict[str, str]
    stdout_tail: str
    stderr_tail: str
    import_error: str | None
    import_status: Status
    function_found: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0
