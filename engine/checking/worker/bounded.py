"""Checking with a hard time bound: typed answers are graded in a warm worker process.

(Derivation steps go through the same worker: see `derivation.bounded`, which uses `ask`.)

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
  `worker_process.WorkerProcess` is the running worker and the pipes to it.

Inside the worker itself the same calls run in-process, so nothing ever waits on itself.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from engine.checking.worker.process import CheckerDied, CheckerTimeout, WorkerProcess
from engine.checking.worker.wire import verdict_from_data
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

if TYPE_CHECKING:
    from engine.cards.typed import NumberItem, TypedItem

TIMEOUT_ENV = "ATTNQUIZ_CHECK_TIMEOUT"
START_TIMEOUT_ENV = "ATTNQUIZ_CHECK_START_TIMEOUT"
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_START_TIMEOUT_S = 4.0

_inside_worker = False
_lock = threading.RLock()
_worker: WorkerProcess | None = None
_atexit_registered = False


@dataclass(frozen=True)
class CheckerFailure:
    """Why a request got no answer; `message` is for the learner.

    `cause`: `timeout` (the check ran past its time limit and was stopped), `memory` (it needed
    more memory than the worker may use), `start` (no worker got ready in time), `died` (the
    worker crashed) or `failed` (the worker could not run the check).
    """

    message: str
    cause: Literal["timeout", "memory", "start", "died", "failed"] = "failed"


# -- the service ----------------------------------------------------------------------------------
class Checker(Protocol):
    """What grading needs from a checker; passed to the session, `check`, lint and the drills
    like the clock, so that cards stay pure (`item.grade(answer)` runs in this process)."""

    def grade(self, item: TypedItem, answer: str) -> Verdict: ...
    def check_bank(self, item: TypedItem) -> list[str]: ...
    def start(self) -> None: ...
    def close(self) -> None: ...


class BoundedChecker:
    """Every check in this process's warm worker, within the time bound (see the module
    docstring). The worker is a resource of the process; this object is how code uses it."""

    def grade(self, item: TypedItem, answer: str) -> Verdict:
        return grade(item, answer)

    def check_bank(self, item: TypedItem) -> list[str]:
        return check_bank(item)

    def expected_value(self, item: NumberItem) -> float | None:
        return expected_value(item)

    def start(self) -> None:
        start_checker()

    def close(self) -> None:
        close_checker()


class InProcessChecker:
    """Every check right here, without a time bound: for the worker itself and for tests of
    the checking logic."""

    def grade(self, item: TypedItem, answer: str) -> Verdict:
        return item.grade_in_process(answer)

    def check_bank(self, item: TypedItem) -> list[str]:
        return item.check_bank_in_process()

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass


_SHARED = BoundedChecker()


def default_checker() -> BoundedChecker:
    """The bounded checker of this process, for the command line's edges that create one."""
    return _SHARED


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
    try:
        return verdict_from_data(reply.get("verdict"))
    except ValueError:  # Verdict refuses a correct but unreadable answer with ValueError too
        return Verdict(
            correct=False, valid=False, feedback="could not check this: the checker's reply was bad"
        )


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


def inside_worker() -> bool:
    """Whether this process is the worker (where checks run in-process)."""
    return _inside_worker


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
    return ask(request, timeout=timeout)


def ask(
    request: dict[str, Any], *, timeout: float | None = None
) -> dict[str, Any] | CheckerFailure:
    """Send one request to the worker and return its reply, within `timeout` (the check time-out
    by default). A failure the worker reports is raised as the in-process check would raise it
    (AnswerError, BankError, ValueError); a check that could not be done is a CheckerFailure.
    """
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
        message = "could not check this: it needs too much memory; try a simpler form"
        return CheckerFailure(message, cause="memory")
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
            message = f"could not check this: the checker could not start ({exc})"
            return CheckerFailure(message, cause="start")
        try:
            worker.wait_ready(time.monotonic() + start_timeout())
        except CheckerTimeout:
            # Still importing SymPy on a busy machine: let it finish for the next check.
            return CheckerFailure(
                f"could not check this in time: the checker did not start within "
                f"{start_timeout():g} s; try again",
                cause="start",
            )
        except CheckerDied:
            return CheckerFailure(_died(worker, restart=True), cause="died")
        try:
            return worker.exchange(request, time.monotonic() + timeout)
        except CheckerTimeout:
            _replace(worker)
            return CheckerFailure(
                f"could not check this in time: checking took longer than {timeout:g} s and "
                "was stopped; try a simpler form of your answer",
                cause="timeout",
            )
        except CheckerDied:
            return CheckerFailure(_died(worker, restart=True), cause="died")
        except BaseException:
            # Ctrl-C (or anything else) mid-request: the reply would come to nobody.
            worker.kill()
            _worker = None
            raise


def _died(worker: WorkerProcess, *, restart: bool) -> str:
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


def _running_worker() -> WorkerProcess:
    global _worker, _atexit_registered
    if _worker is not None and _worker.owner != os.getpid():
        _worker = None  # inherited through fork: it belongs to the parent
    if _worker is None:
        try:
            _worker = WorkerProcess()
        except OSError as exc:  # no Python to run, no processes left, ...
            raise CheckerDied(str(exc)) from None
        if not _atexit_registered:
            atexit.register(close_checker)
            _atexit_registered = True
    return _worker


def _replace(worker: WorkerProcess) -> None:
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
