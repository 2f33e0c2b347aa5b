"""Finding and killing every process a sandbox started, from the parent's side.

The sandbox's processes run under a uid chosen for this run alone, which they cannot leave
(no privileges, no setuid programs under no_new_privs). So "kill every live process of that
uid until none is left" catches anything that escaped the process group or session; and since
only root can create processes of that uid, once none is left, none can appear.
"""

from __future__ import annotations

import contextlib
import functools
import grp
import os
import pwd
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator

# Private uids are drawn from here (inside the user namespace's mapping, when there is one).
_UID_FLOOR = 200_000
_UID_CEILING = 2**31 - 2


# The lines of /proc/PID/status read here. Only these are parsed: a scan reads the status of
# every process on the machine, several times per sandbox, and parsing all of each costs
# milliseconds per scan.
# The kernel escapes a newline in the process's name, so a line starts after "\n".
_STATUS_KEYS = {key: b"\n" + key.encode() + b":" for key in ("State", "Uid")}


def _status_fields(pid: str) -> dict[str, str] | None:
    """The `_STATUS_KEYS` lines of /proc/PID/status (None: no such process)."""
    # os.open and one read, not a file object: a scan makes one of these per process.
    try:
        fd = os.open(f"/proc/{pid}/status", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 1 << 16)  # the whole file (a few KB) comes in one read
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = {}
    for key, line in _STATUS_KEYS.items():
        start = text.find(line)
        if start >= 0:
            end = text.find(b"\n", start + 1)
            value = text[start + len(line) : end if end >= 0 else len(text)]
            fields[key] = value.decode("utf-8", "replace").strip()
    return fields


def _live_processes(*, zombies: bool = False) -> Iterator[tuple[int, dict[str, str]]]:
    """Every live process, and the zombies too when asked (gone, not yet reaped: a zombie's
    /proc/PID/stat still holds the CPU time it used, which no live process has yet)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _status_fields(entry)
            if fields and (zombies or not fields.get("State", "").startswith(("Z", "X"))):
                yield int(entry), fields


def processes_of_uid(uid: int, *, zombies: bool = False) -> list[int]:
    """Live (non-zombie, unless `zombies`) processes whose real, effective or saved uid is
    `uid`."""
    wanted = str(uid)
    return [
        pid
        for pid, fields in _live_processes(zombies=zombies)
        if wanted in fields.get("Uid", "").split()[:3]
    ]


def stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (0: state, 1: ppid, 3: session);
    none for a process that is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()
    except OSError:
        return []


def _stat_field(pid: int, index: int) -> str | None:
    """Field `index` of /proc/PID/stat counted after the command name."""
    after_name = stat_fields(pid)
    return after_name[index] if len(after_name) > index else None


def processes_in_session(session: int, *, zombies: bool = False) -> list[int]:
    """Live processes (and zombies, if asked) whose session id is `session` (the fallback when
    not running as root)."""
    return [
        pid for pid, _ in _live_processes(zombies=zombies) if _stat_field(pid, 3) == str(session)
    ]


def children_of(parent: int) -> list[int]:
    """Live processes whose parent is `parent`: from the kernel's list of each of its threads'
    children where it keeps one (/proc/PID/task/TID/children), else from a scan of /proc."""
    if not _kernel_lists_children():
        return [pid for pid, _ in _live_processes() if _stat_field(pid, 1) == str(parent)]
    try:
        threads = os.listdir(f"/proc/{parent}/task")
    except OSError:
        return []  # no such process
    live = []
    for thread in threads:
        try:
            with open(f"/proc/{parent}/task/{thread}/children", "rb") as children:
                listed = children.read().split()
        except OSError:
            continue  # the thread ended
        for pid in listed:
            fields = _status_fields(pid.decode())
            if fields and not fields.get("State", "").startswith(("Z", "X")):
                live.append(int(pid))
    return live


@functools.cache
def _kernel_lists_children() -> bool:
    return os.path.exists(f"/proc/self/task/{threading.get_native_id()}/children")


def kill_until_gone(
    find: Callable[[], list[int]],
    deadline: float = 5.0,
    first: Callable[[], list[int]] | None = None,
) -> bool:
    """SIGKILL what `find()` lists, repeatedly, until it lists nothing; False if time ran out.

    `first`: a cheap list of the same processes (the members of the sandbox's cgroup), killed
    the same way until it is empty before `find()` is first called. A scan of every process
    costs milliseconds, and one made while the killed are still exiting finds them and must be
    made again; `find()` alone decides that nothing is left.
    """
    stop = time.monotonic() + deadline
    for listed, pause in ((first, 0.001), (find, 0.005)):
        while listed is not None:
            pids = listed()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > stop:
                return False
            time.sleep(pause)
    return True


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
