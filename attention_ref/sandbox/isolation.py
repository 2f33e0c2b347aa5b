"""Process-level confinement the child applies to itself: namespaces, identity, readable paths.

Runs inside the sandbox before any submitted code, in this order: new network and PID
namespaces (root only), a parent-death signal, then in the worker the private uid/gid, and the
rewiring of import paths that the private uid could not traverse.
"""

from __future__ import annotations

import ctypes
import fcntl
import importlib
import os
import signal
import stat
import sys
from collections.abc import Iterable

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000
_MNT_DETACH = 2
_PR_SET_PDEATHSIG = 1

# Read-only system folders: shared libraries, and programs a submission may legitimately run.
SYSTEM_READ_ONLY = (
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/sys/devices/system/cpu",
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

_libc = ctypes.CDLL(None, use_errno=True)


def unshare(flags: int) -> None:
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _mount(source: str, target: str, kind: str | None, flags: int, data: str | None) -> None:
    result = _libc.mount(
        source.encode(),
        target.encode(),
        kind.encode() if kind else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def private_scratch(workdir: str, submission: str, owner: int, size_bytes: int) -> None:
    """Put the sandbox's folder on a tmpfs of `size_bytes`, seen by this process alone.

    RLIMIT_FSIZE bounds each file; this bounds all files together (a full folder answers
    ENOSPC). In a new mount namespace, with no mount event reaching the host, a tmpfs is
    mounted over `workdir`, and the folder's content (home/, tmp/, the submission) is made
    again inside it. The tmpfs vanishes with the namespace's last process. Root only.
    """
    with open(submission, "rb") as source:
        text = source.read()
    unshare(CLONE_NEWNS)
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE, None)
    options = f"size={size_bytes},nr_inodes=16384,mode=0700,uid={owner},gid={owner}"
    _mount("tmpfs", workdir, "tmpfs", _MS_NOSUID | _MS_NODEV, options)
    try:
        for name in ("home", "tmp"):
            folder = os.path.join(workdir, name)
            os.mkdir(folder, 0o700)
            os.chown(folder, owner, owner)
        descriptor = os.open(submission, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "wb") as copy:
            copy.write(text)
        os.chown(submission, owner, owner)
    except BaseException:
        _libc.umount2(workdir.encode(), ctypes.c_int(_MNT_DETACH))
        raise


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Get `sig` when the parent ends (cleared by fork and by changes of uid)."""
    _libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(sig), ctypes.c_ulong(0))


def drop_privileges(uid: int, gid: int) -> str:
    """Become `uid`/`gid` for good, with no supplementary groups and no capabilities."""
    groups = "no supplementary groups"
    try:
        os.setgroups([])
    except PermissionError:
        groups = f"supplementary groups kept: {os.getgroups()}"
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        raise PermissionError("could not drop to the sandbox's uid")
    return groups


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def read_only_grants(protected: Iterable[str]) -> list[str]:
    """What the submission may read: Python, its site-packages, system libraries.

    A grant that would contain a protected folder (the user's HOME, the store) is left out, and
    "/" never is one, so no rule can reach the learner's data by being too wide.
    """
    candidates = [
        *SYSTEM_READ_ONLY,
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    ]
    candidates += [
        entry
        for entry in sys.path
        if os.path.basename(entry) in ("site-packages", "dist-packages") and os.path.isdir(entry)
    ]
    shielded = [os.path.realpath(p) for p in protected]
    grants: list[str] = []
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if real == "/" or any(_under(p, real) for p in shielded):
            continue
        for path in {candidate, real}:
            if path not in grants and os.path.exists(path):
                grants.append(path)
    return grants


def others_can_enter(path: str) -> bool:
    """Whether a uid that owns nothing and has no groups can list `path` and everything above."""
    current = os.path.realpath(path)
    steps = [current]
    while current != "/":
        current = os.path.dirname(current)
        steps.append(current)
    try:
        if not os.stat(steps[0]).st_mode & stat.S_IROTH:
            return False
        return all(os.stat(step).st_mode & stat.S_IXOTH for step in steps)
    except OSError:
        return False


# The descriptors of the rerouted import folders are kept at this number or above: clear of the
# standard streams and of the channel (3) that a process forked from the template is given.
_HELD_FD_FLOOR = 10
# The routes, once made: a process reroutes once (the template, before it forks any sandbox).
_ROUTES: list[list[str]] = []


def reroute_unreachable_imports() -> list[str]:
    """Keep imports working for a private uid when Python lives behind a closed folder.

    Python installed under /root (pyenv) or another 0700 home cannot be traversed by the
    sandbox's uid. While still root, open each such import root and point sys.path (and the
    __path__ of packages already imported) at /proc/self/fd/N: opening through that link skips
    the closed ancestors, while Landlock still checks the real path against its grants.

    Done once per process: the template does it before forking, so a sandbox's worker (which
    calls it again) finds it done and holds the same descriptors (`held_import_folders`),
    instead of touching every imported module again in each fork.
    """
    if _ROUTES:
        return _ROUTES[0]
    routes: dict[str, str] = {}
    for entry in sys.path:
        if entry and os.path.isdir(entry) and not others_can_enter(entry):
            opened = os.open(entry, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            fd = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, _HELD_FD_FLOOR)
            os.close(opened)
            routes[os.path.realpath(entry)] = f"/proc/self/fd/{fd}"
            routes[entry] = routes[os.path.realpath(entry)]

    def route(path: str) -> str:
        for root in sorted(routes, key=len, reverse=True):
            if _under(path, root):
                return routes[root] + path[len(root.rstrip("/")) :]
        return path

    if routes:
        sys.path[:] = [route(entry) for entry in sys.path]
        for module in list(sys.modules.values()):
            search = getattr(module, "__path__", None)
            if isinstance(search, list):
                search[:] = [route(p) if isinstance(p, str) else p for p in search]
        sys.path_importer_cache.clear()
        importlib.invalidate_caches()
    _ROUTES.append(sorted(set(routes.values())))
    return _ROUTES[0]


def held_import_folders() -> list[int]:
    """The descriptors `reroute_unreachable_imports` holds open (none before it ran)."""
    return [int(route.rpartition("/")[2]) for route in (_ROUTES[0] if _ROUTES else [])]
