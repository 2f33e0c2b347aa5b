"""One running checking worker and the pipes to it: start, wait for ready, exchange, kill.

`bounded` owns the one worker of a process and decides when to replace it; this
class only speaks the worker's protocol (JSON lines, see `engine.checking.worker`) with a
deadline on every read and write, and kills the worker's whole process group when asked.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# The module the worker runs as (`python -m`), unless the checker is given another.
WORKER_MODULE = "engine.checking.worker"
# A reply longer than this is not a reply from our worker.
MAX_REPLY_BYTES = 8 * 1024 * 1024
# What the worker needs of the environment: one BLAS thread is plenty for 3 x 3 matrices.
WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The folder that holds the `engine` package: the worker runs there, so `python -m` finds this
# very package and never a stray `engine` or `sympy` in the user's current folder.
PACKAGE_ROOT = Path(__file__).resolve().parents[3]


class CheckerTimeout(Exception):
    """The worker did not answer before the deadline."""


class CheckerDied(Exception):
    """The worker exited, was killed, or sent something that is not a reply."""


class WorkerProcess:
    """One running worker and the pipes to it: `python -m MODULE` (`WORKER_MODULE` by default)."""

    def __init__(self, module: str = WORKER_MODULE) -> None:
        env = {**WORKER_ENV, **os.environ}
        debug = bool(os.environ.get("ATTNQUIZ_DEBUG"))
        self.owner = os.getpid()
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, "--parent", str(self.owner)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if debug else subprocess.DEVNULL,
            cwd=PACKAGE_ROOT,
            env=env,
            close_fds=True,
            # Its own session: Ctrl-C at the terminal goes to us, not to it, and killing its
            # process group kills anything it might have started.
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._to_worker = self.process.stdin
        self._from_worker = self.process.stdout
        os.set_blocking(self._to_worker.fileno(), False)
        os.set_blocking(self._from_worker.fileno(), False)
        self._received = bytearray()
        self._ready = False
        self._next_id = 0
        self._dead = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def exited(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is not None

    def wait_ready(self, deadline: float) -> None:
        while not self._ready:
            message = self._read_message(deadline)
            self._ready = message.get("ready") is True

    def exchange(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        self._next_id += 1
        request_id = self._next_id
        line = json.dumps({**request, "id": request_id}, ensure_ascii=True).encode() + b"\n"
        self._write(line, deadline)
        while True:
            message = self._read_message(deadline)
            if message.get("id") == request_id:
                return message

    def kill(self) -> int | None:
        """Kill the worker's whole process group and reap it; its exit code (None if unknown)."""
        if self.owner != os.getpid():
            return None
        if not self._dead:
            self._dead = True
            if self.process.returncode is None:
                try:
                    if hasattr(os, "killpg"):
                        # The group id is the worker's pid (a new session), and stays reserved
                        # until the worker is reaped below, so this never hits a stranger.
                        os.killpg(self.process.pid, signal.SIGKILL)
                    else:  # pragma: no cover - Windows
                        self.process.kill()
                except (ProcessLookupError, PermissionError):
                    pass
            with contextlib.suppress(subprocess.TimeoutExpired):  # only if stuck in the kernel
                self.process.wait(timeout=10)
            for stream in (self._to_worker, self._from_worker):
                with contextlib.suppress(OSError):
                    stream.close()
        return self.process.returncode

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        with selectors.DefaultSelector() as selector:
            selector.register(self._to_worker.fileno(), selectors.EVENT_WRITE)
            while view:
                if not selector.select(self._remaining(deadline)):
                    continue
                try:
                    written = os.write(self._to_worker.fileno(), view)
                except BlockingIOError:
                    continue
                except (BrokenPipeError, OSError) as exc:
                    raise CheckerDied(str(exc)) from None
                view = view[written:]

    def _read_message(self, deadline: float) -> dict[str, Any]:
        with selectors.DefaultSelector() as selector:
            selector.register(self._from_worker.fileno(), selectors.EVENT_READ)
            while b"\n" not in self._received:
                if not selector.select(self._remaining(deadline)):
                    continue
                try:
                    chunk = os.read(self._from_worker.fileno(), 65536)
                except BlockingIOError:
                    continue
                except OSError as exc:
                    raise CheckerDied(str(exc)) from None
                if not chunk:
                    raise CheckerDied("the checker closed its output")
                self._received += chunk
                if len(self._received) > MAX_REPLY_BYTES:
                    raise CheckerDied("the checker sent an overlong reply")
        line, _, rest = bytes(self._received).partition(b"\n")
        self._received = bytearray(rest)
        try:
            message = json.loads(line)
        except ValueError:
            raise CheckerDied("the checker sent something that is not JSON") from None
        if not isinstance(message, dict):
            raise CheckerDied("the checker sent something that is not a reply")
        return message

    @staticmethod
    def _remaining(deadline: float) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise CheckerTimeout
        return remaining
