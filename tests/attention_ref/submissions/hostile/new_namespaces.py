"""Tries to enter new namespaces: a user namespace gives every capability inside it (chroot,
mounts in a mount namespace of its own) and opens the kernel's largest attack surface.

Prints what each attempt did; raises when any succeeded. Threads must still start (glibc tries
clone3 first and falls back to clone when the kernel says it has no clone3).
"""

import ctypes
import os
import threading

import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x20000, 0x10000000, 0x40000000, 17
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}[os.uname().machine]


def attention(Q, K, V):
    entered = []
    for name, flags in (
        ("user", CLONE_NEWUSER),
        ("user+mount", CLONE_NEWUSER | CLONE_NEWNS),
        ("user+net", CLONE_NEWUSER | CLONE_NEWNET),
    ):
        if libc.unshare(ctypes.c_int(flags)) == 0:
            entered.append(f"unshare {name}")
        else:
            print(f"unshare {name}: {os.strerror(ctypes.get_errno())}")
    # clone() with CLONE_NEWUSER: a child in a new user namespace (it exits at once).
    child = libc.syscall(
        CLONE_SYSCALL, ctypes.c_ulong(CLONE_NEWUSER | SIGCHLD), None, None, None, None
    )
    if child == 0:
        os._exit(0)
    if child > 0:
        os.waitpid(child, 0)
        entered.append("clone user")
    else:
        print(f"clone user: {os.strerror(ctypes.get_errno())}")
    box = []
    worker = threading.Thread(target=lambda: box.append(Q @ K.T))
    worker.start()
    worker.join()
    if entered:
        raise RuntimeError(f"entered {entered}")
    s = box[0] / np.sqrt(Q.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ V
