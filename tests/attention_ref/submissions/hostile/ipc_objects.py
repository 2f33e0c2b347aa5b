"""Creates SysV shared memory, a message queue, semaphores and a POSIX message queue.

Each object would outlive the process in the host's IPC namespace. Prints what each attempt
did; raises when any was created.
"""

import ctypes
import ctypes.util
import os

import numpy as np

IPC_PRIVATE, IPC_CREAT = 0, 0o1000
libc = ctypes.CDLL(None, use_errno=True)


def attention(Q, K, V):
    created = []
    attempts = {
        "shmget": lambda: libc.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o666),
        "msgget": lambda: libc.msgget(0x5A5A0000 + os.getpid() % 1000, IPC_CREAT | 0o666),
        "semget": lambda: libc.semget(IPC_PRIVATE, 4, IPC_CREAT | 0o666),
    }
    rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
    attempts["mq_open"] = lambda: rt.mq_open(b"/attnquiz-hostile-queue", os.O_CREAT | os.O_RDWR, 0o666, None)
    for name, attempt in attempts.items():
        result = attempt()
        if result >= 0:
            created.append(name)
        else:
            print(f"{name}: {os.strerror(ctypes.get_errno())}")
    if created:
        raise RuntimeError(f"created {created}")
    return np.zeros((Q.shape[0], V.shape[1]))
