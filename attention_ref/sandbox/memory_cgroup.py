"""One memory cgroup per sandbox: a bound on all the memory its processes hold together.

RLIMIT_AS bounds each process's address space, not the sum over processes, nor memory that is
not mapped (pipe buffers, files in a memory-backed folder, kernel objects). A memory cgroup
charges every page its processes touch, whatever holds it, and the kernel's OOM killer ends the
group's processes when it is full; its counters then tell the parent that it was memory.

The parent creates the group before the child runs anything it was sent, puts the child's first
process in it (every later process inherits it), and removes it after killing them all. cgroup
v2 (`memory.max`) is used where this process's own group can delegate memory, else cgroup v1
(`memory.limit_in_bytes`); when neither can be created (not root, no memory controller), the
sandbox says so in its report and relies on its other limits.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

_PREFIX = "attnquiz-sandbox-"


class CgroupUnavailable(Exception):
    """No memory cgroup can be created here; the message says why."""


@dataclass
class MemoryCgroup:
    path: Path
    version: int
    limit_bytes: int

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(f"{pid}\n")

    def members(self) -> list[int]:
        """The live processes in the group (one that has exited is not listed, even before
        its parent reaps it)."""
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the group for going over the limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        fields = _fields(self.path / name)
        if "oom_kill" in fields:
            return fields["oom_kill"] > 0
        return _number(self.path / "memory.failcnt") > 0

    def peak_meter(self) -> GroupPeak | None:
        """The group's peak usage set back to its usage now, to be read after a call: what all
        its processes held at once (a child the call forks, files in memory); None where the
        kernel cannot reset it (cgroup v2 before Linux 6.12)."""
        if self.version == 1:
            try:
                (self.path / "memory.max_usage_in_bytes").write_text("0\n")
            except OSError:
                return None
            return GroupPeak(_number(self.path / "memory.usage_in_bytes"), self.path, None)
        try:
            # v2: a write resets the peak as read through the same open file.
            fd = os.open(self.path / "memory.peak", os.O_RDWR)
        except OSError:
            return None
        try:
            os.write(fd, b"reset\n")
        except OSError:
            os.close(fd)
            return None
        return GroupPeak(_number(self.path / "memory.current"), self.path, fd)

    def describe(self) -> str:
        knob = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
        return (
            f"all processes together at most {self.limit_bytes} bytes, files in memory and "
            f"shared memory included (cgroup v{self.version} {knob})"
        )

    def remove(self) -> None:
        """Remove the group once its processes are gone (they are killed before this)."""
        if self.version == 2:
            with contextlib.suppress(OSError):
                (self.path / "cgroup.kill").write_text("1\n")
        stop = time.monotonic() + 2.0
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > stop:
                    return
                time.sleep(0.01)


@dataclass
class GroupPeak:
    """A memory cgroup's usage when its peak was reset, and how to read the peak since."""

    baseline: int
    path: Path
    fd: int | None  # cgroup v2: the open memory.peak the reset was written to

    def growth(self) -> int | None:
        """Bytes the group's peak rose above its usage at the reset (None: unreadable)."""
        try:
            if self.fd is None:
                peak = int((self.path / "memory.max_usage_in_bytes").read_text().strip())
            else:
                os.lseek(self.fd, 0, os.SEEK_SET)
                peak = int(os.read(self.fd, 64).strip())
        except (OSError, ValueError):
            return None
        return max(peak - self.baseline, 0)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _fields(path: Path) -> dict[str, int]:
    fields: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                fields[key] = int(value)
    return fields


def _number(path: Path) -> int:
    try:
        return int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, filesystem type, super options) of every cgroup mount."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            parts, rest = left.split(), right.split()
            if len(parts) > 4 and len(rest) > 2 and rest[0] in ("cgroup", "cgroup2"):
                found.append((parts[4], rest[0], set(rest[2].split(","))))
    return found


def _own_groups() -> dict[str, str]:
    """This process's cgroup per hierarchy: "" for v2, the controller list for v1."""
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            groups[controllers] = path
    return groups


def _v2_parent(mounts: list[tuple[str, str, set[str]]], groups: dict[str, str]) -> Path | None:
    """Our own group if it can delegate memory, else the hierarchy's root (exempt from the
    rule that a group with processes cannot have controlled children)."""
    for point, kind, _ in mounts:
        if kind != "cgroup2" or "" not in groups:
            continue
        failure: OSError | None = None
        for parent in (Path(point) / groups[""].lstrip("/"), Path(point)):
            try:
                if "memory" not in (parent / "cgroup.controllers").read_text().split():
                    continue
                enabled = (parent / "cgroup.subtree_control").read_text().split()
                if "memory" not in enabled:
                    (parent / "cgroup.subtree_control").write_text("+memory\n")
                return parent
            except OSError as error:
                failure = error
        if failure is not None:
            raise failure
    return None


def _v1_parent(mounts: list[tuple[str, str, set[str]]], groups: dict[str, str]) -> Path | None:
    for point, kind, options in mounts:
        if kind == "cgroup" and "memory" in options:
            for controllers, path in groups.items():
                if "memory" in controllers.split(","):
                    return Path(point) / path.lstrip("/")
    return None


def create(limit_bytes: int) -> MemoryCgroup:
    """A fresh memory cgroup limited to `limit_bytes`, or CgroupUnavailable saying why."""
    if os.geteuid() != 0:
        raise CgroupUnavailable("not running as root")
    mounts, groups = _mounts(), _own_groups()
    reasons = []
    for version, find in ((2, _v2_parent), (1, _v1_parent)):
        try:
            parent = find(mounts, groups)
        except OSError as error:
            reasons.append(f"v{version}: {error.strerror or error}")
            continue
        if parent is None:
            reasons.append(f"v{version}: no memory controller")
            continue
        _sweep(parent)
        path = parent / f"{_PREFIX}{secrets.token_hex(6)}"
        try:
            path.mkdir()
        except OSError as error:
            reasons.append(f"v{version}: {error.strerror or error}")
            continue
        group = MemoryCgroup(path, version, limit_bytes)
        try:
            _limit(group)
        except OSError as error:
            group.remove()
            reasons.append(f"v{version}: {error.strerror or error}")
            continue
        return group
    raise CgroupUnavailable("; ".join(reasons) or "no cgroup filesystem")


def _sweep(parent: Path) -> None:
    """Remove empty groups left by sandboxes whose parent was killed before it could clean up.

    Only groups older than a minute: a younger one may belong to a sandbox starting right now,
    between creating its group and putting its first process in it.
    """
    stop = time.time() - 60
    with contextlib.suppress(OSError):
        for stale in parent.glob(f"{_PREFIX}*"):
            with contextlib.suppress(OSError):
                if stale.stat().st_mtime < stop and not (stale / "cgroup.procs").read_text():
                    stale.rmdir()


def _limit(group: MemoryCgroup) -> None:
    value = f"{group.limit_bytes}\n"
    if group.version == 2:
        (group.path / "memory.max").write_text(value)
        with contextlib.suppress(OSError):
            (group.path / "memory.swap.max").write_text("0\n")
        return
    (group.path / "memory.limit_in_bytes").write_text(value)
    with contextlib.suppress(OSError):
        (group.path / "memory.memsw.limit_in_bytes").write_text(value)
    with contextlib.suppress(OSError):
        (group.path / "memory.swappiness").write_text("0\n")
