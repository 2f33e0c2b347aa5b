"""The resource limits of a sandbox, and how the child applies them to itself (setrlimit)."""

from __future__ import annotations

import contextlib
import math
import resource
from dataclasses import asdict, dataclass
from typing import Any

# The largest file the submission may write inside its temporary folder.
MAX_FILE_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Limits:
    """Per-sandbox bounds. `seconds_per_call` bounds the import and each call (wall clock)."""

    memory_bytes: int = 2 * 2**30
    seconds_per_call: float = 10.0
    max_processes: int = 8
    max_output_bytes: int = 64 * 1024
    max_open_files: int = 64
    # All files the submission writes, together (a private tmpfs; root only).
    max_disk_bytes: int = 512 * 2**20

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive, not {value!r}")
        if self.max_open_files < 16:
            raise ValueError("Limits.max_open_files must be at least 16 for Python to run")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Limits:
        return cls(**data)


def apply_limits(limits: Limits) -> dict[str, str]:
    """Set the child's rlimits (before it drops root); returns what is in force, for the report.

    RLIMIT_NPROC counts every task (process or thread) of the real uid, so it only bounds the
    submission when that uid is private to the sandbox; root is exempt from it altogether.
    """
    soft_cpu = _cpu_deadline(limits.seconds_per_call)
    settings = [
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files),
        (resource.RLIMIT_NPROC, limits.max_processes, limits.max_processes),
        (resource.RLIMIT_FSIZE, MAX_FILE_BYTES, MAX_FILE_BYTES),
        (resource.RLIMIT_CORE, 0, 0),
        # The hard limit stays open so the harness can re-arm the soft one before each call.
        (resource.RLIMIT_CPU, soft_cpu, resource.RLIM_INFINITY),
    ]
    for which, soft, hard in settings:
        resource.setrlimit(which, (soft, hard))
    return {
        "memory": f"address space at most {limits.memory_bytes} bytes (RLIMIT_AS)",
        "files": (
            f"at most {limits.max_open_files} open files, files written at most "
            f"{MAX_FILE_BYTES} bytes each"
        ),
        "time": (
            f"{limits.seconds_per_call:g} s wall clock per call (enforced by the parent), "
            "CPU soft limit re-armed before each call (SIGXCPU)"
        ),
    }


def _cpu_deadline(seconds: float) -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return math.ceil(usage.ru_utime + usage.ru_stime + seconds) + 1


def arm_cpu_limit(seconds: float) -> None:
    """Allow `seconds` more CPU time (plus a second of slack) from now on; best effort."""
    # The submission may have lowered the hard limit; the wall clock still holds then.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (_cpu_deadline(seconds), resource.RLIM_INFINITY))
