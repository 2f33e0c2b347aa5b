"""Numba's start-up, done once in a template process rather than in every sandbox that uses it.

Before Numba compiles its first function, a process imports it, loads its typing and lowering
registries (the implementations of every NumPy function and operator it supports) and builds
its first compiled function: about 0.5 s of CPU, the same in every process, before any of the
submission's own code is compiled. A template that has done this once (`template`, `numba=True`)
hands it to every sandbox it forks: grading a Numba submission, timing it, timing the
reference kernel.

Only this start-up is done, never an attention: a submission that finds what the template
compiled (it runs in the same process) finds `_first`, which adds one to an array's first
number. Nothing is written to disk (no `cache=True`), and the settings Numba read from the
environment at import are read again in the sandbox (`reread_settings`), once its own
environment is in place.
"""

from __future__ import annotations

import sys


def start() -> None:
    """Import Numba, load its registries and compile one small function (in the template)."""
    import numba
    import numpy as np
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()

    @numba.njit
    def _first(x: np.ndarray) -> float:
        return x[0] + 1.0  # type: ignore[no-any-return]

    _first(np.zeros(1))


def reread_settings() -> None:
    """In a sandbox forked from a Numba template: read Numba's settings from this process's
    environment (NUMBA_CACHE_DIR, set for attnquiz's own kernel, is read when a function with
    `cache=True` is defined, before any compile would reread it)."""
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.reload_config()
