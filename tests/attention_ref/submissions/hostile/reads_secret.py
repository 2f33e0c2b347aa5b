"""Tries to read files outside its folder (a secret, the store); raises with what it read.

The test fills in PARAMS["files"] and PARAMS["folders"].
"""

import contextlib
import os

import numpy as np

PARAMS: dict = {}


def attention(Q, K, V):
    seen = []
    for path in PARAMS["files"]:
        try:
            with open(path, "rb") as stolen:
                seen.append(stolen.read(200).decode(errors="replace"))
        except OSError:
            pass
    for folder in PARAMS["folders"]:
        with contextlib.suppress(OSError):
            seen.append(" ".join(os.listdir(folder)))
    for path in ("/root/.bashrc", "/etc/shadow", "/proc/1/environ", "/proc/self/environ"):
        try:
            with open(path, "rb") as stolen:
                seen.append(stolen.read(200).decode(errors="replace"))
        except OSError:
            pass
    if seen:
        raise RuntimeError(f"read: {seen}")
    return np.zeros((Q.shape[0], V.shape[1]))
