"""Leaves processes behind that outlive the call: a double-forked daemon in its own session
and a `sleep` in a new session. Both must be gone once grading ends."""

import os
import subprocess
import time

import numpy as np

MARKER = "987.654"


def attention(Q, K, V):
    subprocess.Popen(
        ["sleep", MARKER],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(1)
        os._exit(0)
    os.wait()
    return np.zeros((Q.shape[0], V.shape[1]))
