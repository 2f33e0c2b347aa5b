"""A small ctypes layer over Linux Landlock: read-only and read-write path rules, no TCP.

The process builds a ruleset that handles every access right its kernel's ABI knows, adds
"path beneath" rules for the folders it may use, and restricts itself; from then on, anything
not granted (opening files elsewhere, writing, TCP bind/connect, and from ABI 6 signalling or
reaching abstract Unix sockets outside the sandbox) fails with EACCES/EPERM. Landlock cannot be
lifted by the process, and it is inherited by every child.

Not covered by Landlock (ABI <= 7): stat() of paths, connect() to path-named Unix sockets,
UDP and other non-TCP protocols (the network namespace covers those).
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV

NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class LandlockUnavailable(Exception):
    """The kernel has no usable Landlock (too old, disabled at boot, or refused)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _ulong(value: int) -> ctypes.c_ulong:
    # Variadic C calls need full-width arguments: the kernel reads whole registers.
    return ctypes.c_ulong(value)


def _fail(what: str) -> LandlockUnavailable:
    code = ctypes.get_errno()
    return LandlockUnavailable(f"{what}: {os.strerror(code)} (errno {code})")


def abi_version() -> int:
    """The Landlock ABI of the running kernel, 0 when there is none."""
    version = _libc.syscall(
        ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), _ulong(_CREATE_RULESET_VERSION)
    )
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@dataclass(frozen=True)
class Ruleset:
    """A ruleset file descriptor, ready to be enforced, and a description of what it handles."""

    fd: int
    abi: int
    description: str
    skipped: tuple[str, ...]


def build_ruleset(
    read_only: Iterable[str],
    read_write: Iterable[str],
    devices: Iterable[str],
    list_only: Iterable[str] = (),
) -> Ruleset:
    """Create the ruleset (the paths are opened now, so call this while they are reachable).

    `list_only` folders may be listed (and their subfolders), but no file in them read."""
    abi = abi_version()
    if abi < 1:
        raise LandlockUnavailable("the kernel has no Landlock (ABI 0)")
    handled_fs = _fs_rights(abi)
    attr = _RulesetAttr(handled_access_fs=handled_fs)
    size = 8
    parts = ["filesystem"]
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
        parts.append("TCP (no bind, no connect)")
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
        parts.append("abstract Unix sockets and signals scoped to the sandbox")
    fd = int(
        _libc.syscall(
            ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), _ulong(0)
        )
    )
    if fd < 0:
        raise _fail("landlock_create_ruleset")
    skipped: list[str] = []
    try:
        for paths, rights in (
            (read_only, READ_ONLY),
            (read_write, handled_fs),
            (devices, DEVICE),
            (list_only, READ_DIR),
        ):
            for path in paths:
                if not _add_path_rule(fd, path, rights & handled_fs):
                    skipped.append(path)
    except BaseException:
        os.close(fd)
        raise
    return Ruleset(fd, abi, f"ABI {abi}: " + ", ".join(parts), tuple(skipped))


def _add_path_rule(ruleset_fd: int, path: str, rights: int) -> bool:
    try:
        path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(path_fd).st_mode):
            rights &= _FILE_ONLY
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=path_fd)
        result = _libc.syscall(
            ctypes.c_long(_ADD_RULE),
            _ulong(ruleset_fd),
            _ulong(_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            _ulong(0),
        )
        if result < 0:
            raise _fail(f"landlock_add_rule({path})")
    finally:
        os.close(path_fd)
    return True


def enforce(ruleset: Ruleset) -> None:
    """Restrict this process (and all it will start) to the ruleset; closes the ruleset fd."""
    try:
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, _ulong(1), _ulong(0), _ulong(0), _ulong(0)) != 0:
            raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if _libc.syscall(ctypes.c_long(_RESTRICT_SELF), _ulong(ruleset.fd), _ulong(0)) < 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(ruleset.fd)
