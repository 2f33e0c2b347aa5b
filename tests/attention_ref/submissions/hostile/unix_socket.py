"""Tries to reach Unix socket listeners at paths and in the abstract namespace; raises if so.

PARAMS: "stream" and "dgram" (paths of a stream and a datagram listener), "abstract" (the name
of an abstract stream listener).
"""

import socket

import numpy as np

PARAMS: dict = {}


def attention(Q, K, V):
    reached = []
    targets = (
        ("path stream", PARAMS["stream"], socket.SOCK_STREAM),
        ("path datagram", PARAMS["dgram"], socket.SOCK_DGRAM),
        ("abstract stream", "\0" + PARAMS["abstract"], socket.SOCK_STREAM),
    )
    for name, address, kind in targets:
        try:
            with socket.socket(socket.AF_UNIX, kind) as client:
                client.settimeout(0.5)
                client.connect(address)
                client.send(b"stolen answers")
                reached.append(name)
        except OSError as error:
            print(f"{name}: {error}")
    # A datagram pair may name any address in sendto(); only stream pairs may be made.
    try:
        left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        left.sendto(b"stolen answers", PARAMS["dgram"])
        reached.append("datagram pair")
    except OSError as error:
        print(f"datagram pair: {error}")
    if reached:
        raise RuntimeError(f"reached {reached}")
    return np.zeros((Q.shape[0], V.shape[1]))
