"""Ctrl-C held back while an answer is written: it takes effect once the write is done.

A KeyboardInterrupt raised inside a store transaction rolls it back, so an answer the learner
had rated was lost; Ctrl-C pressed while the store waits for another attnquiz's lock, or a
second Ctrl-C while the first saves the graded answer, did that. `ctrl_c_held` notes a Ctrl-C
that comes during the block and acts on it (the previous handler, KeyboardInterrupt by default)
as soon as the block has ended without an error of its own.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives Python's signals, and may set their handlers
        return
    pressed: list[FrameType | None] = []
    previous = signal.signal(signal.SIGINT, lambda _signum, frame: pressed.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        if callable(previous):
            previous(signal.SIGINT, pressed[0])
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt
