"""Holds memory outside the address-space limit, in the way PARAMS names; raises if it held it.

"shm": SysV shared memory segments of 512 MiB, touched through a mapping then detached;
"memfd": memory files filled with write(), never mapped;
"processes": several processes, each within its own address-space limit;
"disk": many files, each under the per-file size limit.
"""

import ctypes
import os
import time

import numpy as np

PARAMS: dict = {}
CHUNK = 512 * 2**20
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p


def _shm(total):
    held = 0
    while held < total:
        segment = libc.shmget(0, CHUNK, 0o1000 | 0o600)
        if segment < 0:
            raise OSError(ctypes.get_errno(), f"shmget: {os.strerror(ctypes.get_errno())}")
        address = libc.shmat(segment, None, 0)
        ctypes.memset(address, 1, CHUNK)
        libc.shmdt(ctypes.c_void_p(address))
        held += CHUNK
    return held


def _memfd(total):
    held, block = 0, b"\1" * (16 * 2**20)
    files = []
    while held < total:
        fd = os.memfd_create("hidden")
        files.append(fd)
        for _ in range(CHUNK // len(block)):
            held += os.write(fd, block)
    return held


def _processes(total):
    """Children that each hold their share and say so; held only once every one has said it."""
    each = 600 * 2**20
    ready, tell = os.pipe()
    os.set_blocking(ready, False)
    children = []
    for _ in range(total // each):
        pid = os.fork()
        if pid == 0:
            data = np.ones(each // 8)
            os.write(tell, b"1")
            time.sleep(60)
            os._exit(int(data[0]))
        children.append(pid)
    os.close(tell)
    said = 0
    while said < len(children):
        for pid in children:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                raise MemoryError(f"a child ended with status {status}")
        try:
            said += len(os.read(ready, 16))
        except BlockingIOError:
            time.sleep(0.02)
    return total


def _disk(total):
    held, block = 0, b"\1" * (16 * 2**20)
    number = 0
    while held < total:
        with open(f"file-{number}.bin", "wb") as out:
            for _ in range(200 * 2**20 // len(block)):
                held += out.write(block)
        number += 1
    return held


def attention(Q, K, V):
    held = {"shm": _shm, "memfd": _memfd, "processes": _processes, "disk": _disk}[PARAMS["how"]](
        PARAMS["total"]
    )
    raise RuntimeError(f"held {held} bytes")
