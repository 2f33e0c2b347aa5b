"""Right answers; its first timed call (after the two warm-up calls) starts a process that stays:
one that kept a core busy would slow down whatever is timed after it. Checking for new processes
only after the warm-up calls misses it."""
import os
import time

import numpy as np

calls = 0


def attention(Q, K, V):
    global calls
    calls += 1
    if calls == 3 and os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return s / s.sum(axis=1, keepdims=True) @ V
