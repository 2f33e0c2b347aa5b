"""Finds the harness's channel and writes a forged reply on it, with the run's real token.

This is the strongest forger: it reads the token out of the harness's memory. What it can win
is choosing the outputs of this one call, which it could do honestly anyway, since the parent
compares outputs itself. The harness's genuine reply then arrives out of turn, and the parent
stops trusting the channel.
"""

import gc
import json
import os
import socket
import stat
import struct

import numpy as np

# attnquiz's own packages cannot be imported here: the forger writes the frame format itself.
PREFIX = struct.Struct("!4s16sIIQ")


def send_frame(channel, token, seq, header, payload):
    head = json.dumps(header, separators=(",", ":")).encode()
    size = sum(len(p) for p in payload)
    channel.sendall(PREFIX.pack(b"AQSB", token, seq, len(head), size) + head + b"".join(payload))


def _channel_fd() -> int:
    for fd in range(3, 1024):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    raise RuntimeError("no channel found")


def _token() -> bytes:
    for thing in gc.get_objects():
        if type(thing).__name__ == "_Worker":
            return thing._token
    raise RuntimeError("no harness found")


def attention(Q, K, V):
    fd = _channel_fd()
    token = _token()
    forged = np.full((Q.shape[0], V.shape[1]), 0.5)
    spec = {"dtype": forged.dtype.str, "shape": list(forged.shape)}
    header = {
        "kind": "result",
        "status": "ok",
        "error": None,
        "value": {"form": "array", "arrays": [spec]},
    }
    with socket.socket(fileno=os.dup(fd)) as channel:
        # The first call of a sandbox has sequence number 2 (1 is the import).
        send_frame(channel, token, 2, header, [forged.tobytes()])
    return np.zeros((Q.shape[0], V.shape[1]))
