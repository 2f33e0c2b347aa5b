"""Tries to change how the kernel schedules itself and the processes around it: leave the one
core timing pins it to (for an idle core while the reference stays on a busy one), renice or
deprioritise another process of the same user (the NumPy reference being timed next to it, or
attnquiz itself, when the sandbox has no private uid), or lower another process's limits.

Prints what each attempt did; raises when any succeeded. Its own limits it may still lower.
"""

import os
import resource

import numpy as np


def attention(Q, K, V):
    other = os.getppid()
    attempts = {
        "affinity of itself": lambda: os.sched_setaffinity(0, range(os.cpu_count() or 1)),
        "affinity of another": lambda: os.sched_setaffinity(other, {0}),
        "priority of another": lambda: os.setpriority(os.PRIO_PROCESS, other, 19),
        "priority of its user": lambda: os.setpriority(os.PRIO_USER, 0, 19),
        "policy of another": lambda: os.sched_setscheduler(
            other, os.SCHED_IDLE, os.sched_param(0)
        ),
        "limits of another": lambda: resource.prlimit(other, resource.RLIMIT_NOFILE, (64, 64)),
    }
    done = []
    for name, attempt in attempts.items():
        try:
            attempt()
            done.append(name)
        except OSError as error:
            print(f"{name}: {error.strerror}")
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))  # its own: allowed
    print(f"own limits: ok, {len(os.sched_getaffinity(0))} core(s)")
    if done:
        raise RuntimeError(f"changed {done}")
    s = Q @ K.T / np.sqrt(Q.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ V
