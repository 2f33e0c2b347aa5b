"""Tries to reach a TCP listener on the host (port from PARAMS) and to send UDP; raises if so."""

import socket

import numpy as np

PARAMS: dict = {}


def attention(Q, K, V):
    reached = []
    for host in ("127.0.0.1", "localhost"):
        try:
            with socket.create_connection((host, PARAMS["port"]), timeout=0.5) as connection:
                connection.sendall(b"stolen answers")
                reached.append(host)
        except OSError as error:
            print(f"connect {host}: {error}")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"hello", ("127.0.0.1", PARAMS["port"]))
            reached.append("udp")
    except OSError as error:
        print(f"udp: {error}")
    if reached:
        raise RuntimeError(f"reached {reached}")
    return np.zeros((Q.shape[0], V.shape[1]))
