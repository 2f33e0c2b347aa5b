"""Tries to start 50 processes that sleep; the process bound must stop it early."""

import os
import time


def attention(Q, K, V):
    started = 0
    try:
        for _ in range(50):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            started += 1
    except OSError as error:
        raise RuntimeError(f"started {started} of 50 processes, then {error.strerror}") from None
    raise RuntimeError("started all 50 processes")
