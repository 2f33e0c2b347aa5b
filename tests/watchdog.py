"""pytest-timeout's "thread" method with one watching thread per test process, not one per test.

The method (pyproject.toml: `timeout_method = "thread"`) was chosen so that no signal of the
suite's own reaches the code under test: a thread watches the clock and, when a test outruns its
time-out, prints every thread's stack and ends the process (`pytest_timeout.timeout_timer`).
pytest-timeout starts a `threading.Timer` for each test and joins it at the end of the test: a
thread started and joined per test, 4,600 of them per run, each join waiting for the timer
thread to get a core on a busy machine. Here one thread, started with the first test, watches
whichever test is running; a test hands it its deadline and takes it back, under a lock. What
happens at a time-out is pytest-timeout's own code, unchanged. The other methods ("signal") and
per-test settings (`@pytest.mark.timeout`, `func_only`) are pytest-timeout's as before.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import pytest_timeout


class Watchdog:
    """The one thread that ends the process when the watched test outruns its deadline."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._watched: tuple[Any, Any, float] | None = None  # item, settings, deadline
        self._thread: threading.Thread | None = None

    def watch(self, item: Any, settings: Any) -> None:
        with self._changed:
            self._watched = (item, settings, time.monotonic() + settings.timeout)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="attnquiz test time-out watchdog", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def stop_watching(self, item: Any) -> None:
        with self._changed:
            if self._watched is not None and self._watched[0] is item:
                self._watched = None
            # No wake-up needed: the thread, waking at the old deadline, finds nothing to end.

    def _run(self) -> None:
        while True:
            item, settings = self._expired()
            # Stacks printed, then os._exit(1); it returns only under a debugger, and the
            # next test is watched as before.
            pytest_timeout.timeout_timer(item, settings)

    def _expired(self) -> tuple[Any, Any]:
        """Wait until the watched test's deadline passes while it is still watched."""
        with self._changed:
            while True:
                if self._watched is None:
                    self._changed.wait()
                    continue
                item, settings, deadline = self._watched
                left = deadline - time.monotonic()
                if left <= 0:
                    self._watched = None
                    return item, settings
                self._changed.wait(left)


WATCHDOG = Watchdog()


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    if settings.method != "thread":
        return None  # pytest-timeout's own way
    WATCHDOG.watch(item, settings)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> bool | None:
    WATCHDOG.stop_watching(item)
    return None  # pytest-timeout cancels what it may have set itself (the signal method)
