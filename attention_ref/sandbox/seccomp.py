"""A seccomp filter for the worker: deny the system calls that reach past every other wall.

Landlock (up to ABI 7) does not cover connecting to a Unix socket at a path; the network
namespace does not either (path sockets live in the filesystem). SysV IPC, POSIX message queues
and memory files hold memory outside RLIMIT_AS and outlive the process; keyrings outlive it too;
io_uring performs socket operations without passing through the filtered system calls. So the
worker denies, with EACCES:

- `socket()` of every family (a submission has nothing to connect to), and `socketpair()` but
  for stream pairs (a datagram pair could `sendto()` a path-bound socket);
- `shmget`, `msgget`, `semget`, `mq_open` (new IPC objects), `memfd_create`, `memfd_secret`;
- `io_uring_setup`, `add_key`, `request_key`, `keyctl`, `userfaultfd`, `bpf`;
- the calls that change how processes are scheduled (`sched_setaffinity`, `setpriority`,
  `sched_setscheduler`, `sched_setparam`, `sched_setattr`, `ioprio_set`) and `prlimit64` but
  on itself: without a private uid every sandbox shares the learner's uid, so these would
  reach the reference timed next to the code, or attnquiz itself; and leaving the core timing
  pins the code to would time it on another core than the reference;
- `unshare` and `clone` with any namespace flag: a new user namespace would give every
  capability inside it (chroot, mounts of its own) and the kernel's widest attack surface;
  `clone3`, whose flags sit in memory a filter cannot read, answers ENOSYS, so that threads
  and processes start through `clone` as the C library then does by itself;
- on x86-64 every x32 or 32-bit system call (other numbers for the same calls).

The filter is a classic BPF program written here (no library needed), installed with TSYNC so
that every thread gets it; it is inherited by every child and cannot be removed.
"""

from __future__ import annotations

import ctypes
import os
import platform
import socket
import struct

_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_DENY = _RET_ERRNO | 13  # EACCES

# BPF opcodes: ld word absolute, jump if equal / greater-or-equal (constant), and, return.
_LD_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_AND = 0x54
_RET = 0x06

_X32_BIT = 0x40000000
_SOCK_TYPE_MASK = 0xF
# CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
_NAMESPACE_FLAGS = 0x80 | 0x20000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
_NAMESPACE_FLAGS |= 0x20000000 | 0x40000000
_NO_SUCH_CALL = _RET_ERRNO | 38  # ENOSYS

# (audit arch, seccomp syscall number, denied calls by name, socketpair's number,
#  (unshare, clone, clone3), prlimit64's number)
_ARCHES = {
    "x86_64": (
        0xC000003E,
        317,
        {
            "socket": 41,
            "shmget": 29,
            "semget": 64,
            "msgget": 68,
            "mq_open": 240,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "memfd_create": 319,
            "bpf": 321,
            "userfaultfd": 323,
            "io_uring_setup": 425,
            "memfd_secret": 447,
            "setpriority": 141,
            "sched_setparam": 142,
            "sched_setscheduler": 144,
            "sched_setaffinity": 203,
            "ioprio_set": 251,
            "sched_setattr": 314,
        },
        53,
        (272, 56, 435),
        302,
    ),
    "aarch64": (
        0xC00000B7,
        277,
        {
            "socket": 198,
            "shmget": 194,
            "semget": 190,
            "msgget": 186,
            "mq_open": 180,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "memfd_create": 279,
            "bpf": 280,
            "userfaultfd": 282,
            "io_uring_setup": 425,
            "memfd_secret": 447,
            "setpriority": 140,
            "sched_setparam": 118,
            "sched_setscheduler": 119,
            "sched_setaffinity": 122,
            "ioprio_set": 30,
            "sched_setattr": 274,
        },
        199,
        (97, 220, 435),
        261,
    ),
}


class SeccompUnavailable(Exception):
    """This machine's architecture or kernel does not take the filter."""


def _statement(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def build_program(machine: str) -> bytes:
    """The BPF program for `machine` (as `platform.machine()` names it)."""
    if machine not in _ARCHES:
        raise SeccompUnavailable(f"no seccomp filter for the {machine} architecture")
    arch, _, denied, socketpair, (unshare, clone, clone3), prlimit = _ARCHES[machine]
    program: list[bytes] = []
    # Offsets in struct seccomp_data: nr 0, arch 4, args[i] at 16 + 8 i (low word first).
    program.append(_statement(_LD_ABS, 4))
    program.append(_statement(_JEQ, arch, 1, 0))
    program.append(_statement(_RET, _DENY))
    program.append(_statement(_LD_ABS, 0))
    if machine == "x86_64":
        program.append(_statement(_JGE, _X32_BIT, 0, 1))
        program.append(_statement(_RET, _DENY))
    for number in denied.values():
        program.append(_statement(_JEQ, number, 0, 1))
        program.append(_statement(_RET, _DENY))
    # prlimit64 on itself (pid 0: how the C library's setrlimit calls it) only.
    program.append(_statement(_JEQ, prlimit, 0, 4))
    program.append(_statement(_LD_ABS, 16))
    program.append(_statement(_JEQ, 0, 0, 1))
    program.append(_statement(_RET, _RET_ALLOW))
    program.append(_statement(_RET, _DENY))
    program.append(_statement(_JEQ, clone3, 0, 1))
    program.append(_statement(_RET, _NO_SUCH_CALL))
    for number in (unshare, clone):
        # The flags are the first argument of both; any namespace flag is denied.
        program.append(_statement(_JEQ, number, 0, 5))
        program.append(_statement(_LD_ABS, 16))
        program.append(_statement(_AND, _NAMESPACE_FLAGS))
        program.append(_statement(_JEQ, 0, 0, 1))
        program.append(_statement(_RET, _RET_ALLOW))
        program.append(_statement(_RET, _DENY))
    program.append(_statement(_JEQ, socketpair, 0, 6))
    program.append(_statement(_LD_ABS, 16))
    program.append(_statement(_JEQ, socket.AF_UNIX, 0, 3))
    program.append(_statement(_LD_ABS, 24))
    program.append(_statement(_AND, _SOCK_TYPE_MASK))
    # After the AND: stream pairs pass, anything else falls to the deny below.
    program.append(_statement(_JEQ, socket.SOCK_STREAM, 1, 0))
    program.append(_statement(_RET, _DENY))
    program.append(_statement(_RET, _RET_ALLOW))
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def install() -> str:
    """Deny the calls above in this process and all its threads and children; what is denied."""
    machine = platform.machine()
    program = build_program(machine)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    ulong = ctypes.c_ulong
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, ulong(1), ulong(0), ulong(0), ulong(0)) != 0:
        raise _failure("prctl(PR_SET_NO_NEW_PRIVS)")
    seccomp_number = _ARCHES[machine][1]
    result = _libc.syscall(
        ctypes.c_long(seccomp_number),
        ulong(_SECCOMP_SET_MODE_FILTER),
        ulong(_SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    # Older kernels: no seccomp() system call, or no TSYNC; the worker has one thread then.
    if result != 0 and _libc.prctl(
        _PR_SET_SECCOMP, ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog), ulong(0), ulong(0)
    ):
        raise _failure("seccomp filter")
    names = ", ".join(sorted(_ARCHES[machine][2]))
    return (
        f"denied (EACCES): {names}; prlimit64 but on itself; socketpair but for stream pairs; "
        "new namespaces (unshare, clone); clone3 answers ENOSYS"
    )


def _failure(what: str) -> SeccompUnavailable:
    code = ctypes.get_errno()
    return SeccompUnavailable(f"{what}: {os.strerror(code)} (errno {code})")
