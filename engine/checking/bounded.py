"""Checking with a hard time bound: typed answers are graded in a warm worker process.

SymPy can run for minutes, or exhaust memory, on a tiny expression, and part of that work is in
C code that no signal or thread can interrupt. So every SymPy step of grading runs in a child
process (`engine.checking.worker`) that this module kills when a check overruns:

- One worker per process, started by `start_checker()` as soon as a command knows it will grade
  (before the bank is loaded), so that its SymPy import overlaps the rest of start-up.
- Each check waits at most `$ATTNQUIZ_CHECK_TIMEOUT` seconds (5 by default) once the worker is
  ready, and at most `$ATTNQUIZ_CHECK_START_TIMEOUT` (4 by default) for a worker to get ready:
  together under the 10 s promised for any input.
- On a time-out, or when the worker dies (crash, memory limit), the whole worker process group
  is killed, a fresh worker starts in the background for the next check, and the learner gets an
  invalid verdict that says so; never a correct one.
- The worker is killed at exit (atexit) and, on Linux, by the kernel if this process dies.

Inside the worker itself the same calls run in-process, so nothing ever waits on itself.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

if TYPE_CHECKING:
    from engine.cards.typed import NumberItem, TypedItem

TIMEOUT_ENV = "ATTNQUIZ_CHECK_TIMEOUT"
START_TIMEOUT_ENV = "ATTNQUIZ_CHECK_START_TIMEOUT"
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_START_TIMEOUT_S = 4.0
# A reply longer than this is not a reply from our worker.
MAX_REPLY_BYTES = 8 * 1024 * 1024
# What the worker needs of the environment: one BLAS thread is plenty for 3 x 3 matrices.
WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The folder that holds the `engine` package: the worker runs there, so `python -m` finds this
# very package and never a stray `engine` or `sympy` in the user's current folder.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent

_inside_worker = False
_lock = threading.RLock()
_worker: _WorkerProcess | None = None
_atexit_registered = False


class CheckerTimeout(Exception):
    """The worker did not answer before the deadline."""


class CheckerDied(Exception):
    """The worker exited, was killed, or sent something that is not a reply."""


@dataclass(frozen=True)
class CheckerFailure:
    """Why a request got no answer; `message` is for the learner."""

    message: str


# -- the public calls -----------------------------------------------------------------------------
def grade(item: TypedItem, answer: str) -> Verdict:
    """Grade `answer` for `item` in the worker, within the time bound.

    Raises AnswerError, BankError or ValueError as the in-process grading would.
    """
    if _inside_worker:
        return item.grade_in_process(answer)
    try:
        reply = _ask("grade", item, answer=answer)
    except ValueError as exc:  # not the learner's fault, but their answer still gets a verdict
        return Verdict(correct=False, valid=False, feedback=f"could not check this: {exc}")
    if isinstance(reply, CheckerFailure):
        return Verdict(correct=False, valid=False, feedback=reply.message)
    return _verdict(reply)


def expected_value(item: NumberItem) -> float | None:
    """The number a number item's answer stands for; None if it could not be worked out in time."""
    if _inside_worker:
        return item.expected_value()
    reply = _ask("value", item)
    if isinstance(reply, CheckerFailure):
        return None
    value = reply.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def check_bank(item: TypedItem) -> list[str]:
    """Author-facing problems of `item`'s stated answers (lint), re-checked in the worker."""
    if _inside_worker:
        return item.check_bank_in_process()
    # Lint checks the answer and every mistake: each of those checks gets the full time.
    answers = 2 + len(item.mistakes)
    reply = _ask("check_bank", item, timeout=check_timeout() * answers)
    if isinstance(reply, CheckerFailure):
        return [f"cannot re-check the stated answers: {reply.message}"]
    problems = reply.get("problems")
    if not isinstance(problems, list):
        return ["cannot re-check the stated answers: the checker sent no list of problems"]
    return [str(p) for p in problems]


def start_checker() -> None:
    """Start the worker now, without waiting for it, if it is not running already."""
    if _inside_worker:
        return
    with _lock, contextlib.suppress(CheckerDied):  # a check will report it
        _running_worker()


def close_checker() -> None:
    """Kill the worker (if any); the next check starts a new one."""
    global _worker
    with _lock:
        if _worker is not None:
            _worker.kill()
            _worker = None


def checker_pid() -> int | None:
    """The worker's process id, or None when none is running (for tests and diagnostics)."""
    with _lock:
        return None if _worker is None else _worker.pid


def check_timeout() -> float:
    return _seconds_from_env(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)


def start_timeout() -> float:
    return _seconds_from_env(START_TIMEOUT_ENV, DEFAULT_START_TIMEOUT_S)


def mark_inside_worker() -> None:
    """Called by the worker: from now on, checks in this process run in-process."""
    global _inside_worker
    _inside_worker = True


def stall_for_tests(mode: str = "sleep") -> Verdict:
    """Send the worker a misbehaving request: one that never ends (`sleep`, or `spin` in C), one
    that kills the worker (`crash`), or one that needs more memory than it may have (`hog`).

    The worker honours it only when started with `ATTNQUIZ_CHECKER_TEST_OPS=1` in its
    environment; otherwise it answers that it does not know the request.
    """
    reply = _exchange({"op": "stall", "mode": mode}, check_timeout())
    if isinstance(reply, CheckerFailure):
        return Verdict(correct=False, valid=False, feedback=reply.message)
    return Verdict(correct=False, valid=False, feedback=str(reply.get("message", "")))


# -- requests and replies -------------------------------------------------------------------------
def _ask(
    op: str, item: TypedItem, *, answer: str | None = None, timeout: float | None = None
) -> dict[str, Any] | CheckerFailure:
    request: dict[str, Any] = {"op": op, "kind": item.kind, "item": item.model_dump(mode="json")}
    if answer is not None:
        request["answer"] = answer
    reply = _exchange(request, check_timeout() if timeout is None else timeout)
    if isinstance(reply, CheckerFailure):
        return reply
    error = reply.get("error")
    if error is None:
        return reply
    message = str(reply.get("message", ""))
    if error == "answer":
        raise AnswerError(message)
    if error == "bank":
        problems = reply.get("problems")
        raise BankError([str(p) for p in problems] if isinstance(problems, list) else [message])
    if error == "value":
        raise ValueError(message)
    if error == "memory":
        return CheckerFailure("could not check this: it needs too much memory; try a simpler form")
    return CheckerFailure(f"could not check this: the checker failed ({message})")


def _exchange(request: dict[str, Any], timeout: float) -> dict[str, Any] | CheckerFailure:
    """Send one request and wait for its reply, killing and replacing the worker on failure."""
    global _worker
    with _lock:
        try:
            worker = _running_worker()
            if worker.exited():
                # It died while idle (a resource limit, the OOM killer): not this answer's fault.
                _replace(worker)
                worker = _running_worker()
        except CheckerDied as exc:
            return CheckerFailure(f"could not check this: the checker could not start ({exc})")
        try:
            worker.wait_ready(time.monotonic() + start_timeout())
        except CheckerTimeout:
            # Still importing SymPy on a busy machine: let it finish for the next check.
            return CheckerFailure(
                f"could not check this in time: the checker did not start within "
                f"{start_timeout():g} s; try again"
            )
        except CheckerDied:
            return CheckerFailure(_died(worker, restart=True))
        try:
            return worker.exchange(request, time.monotonic() + timeout)
        except CheckerTimeout:
            _replace(worker)
            return CheckerFailure(
                f"could not check this in time: checking took longer than {timeout:g} s and "
                "was stopped; try a simpler form of your answer"
            )
        except CheckerDied:
            return CheckerFailure(_died(worker, restart=True))
        except BaseException:
            # Ctrl-C (or anything else) mid-request: the reply would come to nobody.
            worker.kill()
            _worker = None
            raise


def _verdict(reply: dict[str, Any]) -> Verdict:
    fields = reply.get("verdict")
    try:
        if not isinstance(fields, dict):
            raise TypeError("no verdict")
        return Verdict(
            correct=_typed(fields, "correct", bool),
            valid=_typed(fields, "valid", bool),
            interpreted_as=_typed(fields, "interpreted_as", str),
            feedback=_typed(fields, "feedback", str),
            score=float(_typed(fields, "score", int | float)),
        )
    except (TypeError, ValueError):
        return Verdict(
            correct=False, valid=False, feedback="could not check this: the checker's reply was bad"
        )


def _typed(fields: dict[str, Any], name: str, kind: Any) -> Any:
    value = fields.get(name)
    if not isinstance(value, kind):
        raise TypeError(f"{name} is not {kind}")
    return value


def _died(worker: _WorkerProcess, *, restart: bool) -> str:
    code = worker.kill()
    if restart:
        _replace(worker)
    if code is not None and code < 0:
        how = f"killed by signal {-code}"
        if -code in (signal.SIGKILL, getattr(signal, "SIGXCPU", 0)):
            how += ", perhaps past its memory or time limit"
    else:
        how = f"exit code {code}"
    return f"could not check this: the checker stopped ({how}); try again or a simpler form"


def _running_worker() -> _WorkerProcess:
    global _worker, _atexit_registered
    if _worker is not None and _worker.owner != os.getpid():
        _worker = None  # inherited through fork: it belongs to the parent
    if _worker is None:
        try:
            _worker = _WorkerProcess()
        except OSError as exc:  # no Python to run, no processes left, ...
            raise CheckerDied(str(exc)) from None
        if not _atexit_registered:
            atexit.register(close_checker)
            _atexit_registered = True
    return _worker


def _replace(worker: _WorkerProcess) -> None:
    """Kill `worker` and start a fresh one right away, so it is warm for the next check."""
    global _worker
    worker.kill()
    if _worker is worker:
        _worker = None
    with contextlib.suppress(CheckerDied):  # the next check reports it
        _running_worker()


def _seconds_from_env(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if 0 < value < 3600 else default


# -- the process ----------------------------------------------------------------------------------
class _WorkerProcess:
    """One running worker and the pipes to it."""

    def __init__(self) -> None:
        env = {**WORKER_ENV, **os.environ}
        debug = bool(os.environ.get("ATTNQUIZ_DEBUG"))
        self.owner = os.getpid()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.checking.worker", "--parent", str(self.owner)],
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
