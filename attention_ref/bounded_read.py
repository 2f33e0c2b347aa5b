"""Reading a file whose size nobody has checked: the size first, then at most the limit.

A learner's submission, a bank or a drill file may be huge, sparse (30 GB of nothing), a device
or a file that grows while it is read. `read_at_most` never holds more than `limit + 1` bytes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def read_at_most(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file `path` if it holds at most `limit` bytes, else None.

    Raises OSError when it cannot be opened, or is not a regular file (a folder, a device, a
    pipe: opening a pipe for reading could wait forever, so it is refused before opening).
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    if info.st_size > limit:
        return None
    # O_NONBLOCK: a pipe put in its place since the check is opened at once (and refused)
    # instead of waiting for a writer; a regular file reads the same either way.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(descriptor, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        raw = source.read(limit + 1)
    return raw if len(raw) <= limit else None
