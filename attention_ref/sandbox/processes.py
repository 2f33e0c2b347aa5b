"""Finding and killing every process a sandbox started, from the parent's side.

The sandbox's processes run under a uid chosen for this run alone, which they cannot leave
(no privileges, no setuid programs under no_new_privs). So "kill every live process of that
uid until none is left" catches anything that escaped the process group or session; and since
only root can create processes of that uid, once none is left, none can appear.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import secrets
import signal
import time
from collections.abc import Callable, Iterator

# Private uids are drawn from here (inside the user namespace's mapping, when there is one).
_UID_FLOOR = 200_000
_UID_CEILING = 2**31 - 2


def _status_fields(pid: str) -> dict[str, str] | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as status:
            lines = status.read().splitlines()
    except OSError:
        return None
    fields = {}
    for line in lines:
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _live_processes() -> Iterator[tuple[int, dict[str, str]]]:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _status_fields(entry)
            if fields and not fields.get("State", "").startswith(("Z", "X")):
                yield int(entry), fields


def processes_of_uid(uid: int) -> list[int]:
    """Live (non-zombie) processes whose real, effective or saved uid is `uid`."""
    return [
        pid for pid, fields in _live_processes() if str(uid) in fields.get("Uid", "").split()[:3]
    ]


def _stat_field(pid: int, index: int) -> str | None:
    """Field `index` of /proc/PID/stat counted after the command name (0: state, 1: ppid)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            after_name = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return after_name[index] if len(after_name) > index else None


def processes_in_session(session: int) -> list[int]:
    """Live processes whose session id is `session` (the fallback when not running as root)."""
    return [pid for pid, _ in _live_processes() if _stat_field(pid, 3) == str(session)]


def children_of(parent: int) -> list[int]:
    """Live processes whose parent is `parent`."""
    return [pid for pid, _ in _live_processes() if _stat_field(pid, 1) == str(parent)]


def kill_until_gone(find: Callable[[], list[int]], deadline: float = 5.0) -> bool:
    """SIGKILL what `find()` lists, repeatedly, until it lists nothing; False if time ran out."""
    stop = time.monotonic() + deadline
    while True:
        pids = find()
        if not pids:
            return True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > stop:
            return False
        time.sleep(0.005)


def _mapped_ranges(path: str) -> list[tuple[int, int]]:
    try:
        with open(path, encoding="ascii") as mapping:
            rows = [line.split() for line in mapping if line.strip()]
    except OSError:
        return [(0, 2**32 - 1)]
    return [(int(inside), int(inside) + int(count)) for inside, _, count in rows]


def _usable(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    usable = []
    for start, end in ranges:
        low, high = max(start, _UID_FLOOR), min(end, _UID_CEILING)
        if high - low > 1000:
            usable.append((low, high))
    if not usable:  # a narrow mapping (rootless containers): take its top half
        start, end = max(ranges, key=lambda r: r[1] - r[0])
        usable.append(((start + end) // 2, min(end, 65534)))
    return usable


def _is_known(lookup: Callable[[int], object], number: int) -> bool:
    try:
        lookup(number)
    except KeyError:
        return False
    return True


def pick_private_uid() -> int:
    """A uid (also used as gid) that no account, group or live process uses."""
    uid_ranges = _usable(_mapped_ranges("/proc/self/uid_map"))
    gid_ranges = _mapped_ranges("/proc/self/gid_map")
    for _ in range(100):
        low, high = uid_ranges[secrets.randbelow(len(uid_ranges))]
        uid = low + secrets.randbelow(high - low)
        if not any(start <= uid < end for start, end in gid_ranges):
            continue
        if _is_known(pwd.getpwuid, uid) or _is_known(grp.getgrgid, uid):
            continue
        if not processes_of_uid(uid):
            return uid
    raise RuntimeError("no free uid for the sandbox")


def describe_signal(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    meaning = signal.strsignal(number)
    return f"{name} ({meaning.lower()})" if meaning else name
