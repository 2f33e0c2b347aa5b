"""How much memory one call of the submission held at its peak, measured from outside it.

The submission runs in the same process as the harness and can change anything in it
(`tracemalloc` included), so a figure it reports is only a claim. The kernel keeps the
process's resident high-water mark (`VmHWM` in /proc/PID/status); writing 5 to
/proc/PID/clear_refs sets it back to the resident size of the moment. The parent does both
around a call: the growth of the mark is what the call held at once, whatever allocated it
(NumPy, Numba's runtime, ctypes). Memory held by processes the call starts is counted by the
sandbox's memory cgroup, whose peak the parent resets and reads around the call too where the
kernel allows (`MemoryCgroup.peak_meter`); the call's figure is the larger of the two.
"""

from __future__ import annotations

import contextlib

import attention_ref.sandbox.processes as processes


def worker_of(supervisor: int) -> int | None:
    """The sandbox's worker: the only grandchild of its first process (before any import)."""
    children = processes.children_of(supervisor)
    if len(children) != 1:
        return None
    grandchildren = processes.children_of(children[0])
    return grandchildren[0] if len(grandchildren) == 1 else None


class PeakMemory:
    """The resident high-water mark of process `pid`, reset and read by its parent."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def reset(self) -> int | None:
        """Set the mark to the resident size now; that size in bytes (None: not measurable)."""
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w", encoding="ascii") as clear:
                clear.write("5")
        except OSError:
            return None
        return self._field("VmRSS")

    def growth_since(self, baseline: int | None) -> int | None:
        """Bytes the mark rose above `baseline` (what `reset` returned); None if unknown."""
        if baseline is None:
            return None
        mark = self._field("VmHWM")
        return None if mark is None else max(mark - baseline, 0)

    def _field(self, name: str) -> int | None:
        path = f"/proc/{self.pid}/status"
        with contextlib.suppress(OSError, ValueError, IndexError), open(path) as status:
            for line in status:
                key, _, value = line.partition(":")
                if key == name:
                    return int(value.split()[0]) * 1024
        return None
