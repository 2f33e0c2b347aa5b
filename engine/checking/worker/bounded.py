"""Checking with a hard time bound: typed answers are graded in a warm worker process.

(Derivation steps go through the same worker: see `derivation.bounded`, which uses `ask`.)

SymPy can run for minutes, or exhaust memory, on a tiny expression, and part of that work is in
C code that no signal or thread can interrupt. So every SymPy step of grading runs in a child
process (`engine.checking.worker.main`) that a `BoundedChecker` kills when a check overruns:

- A `BoundedChecker` is a service that owns one worker. The command line's edge creates it (one
  per command run), starts it as soon as it knows the command will grade (before the bank is
  loaded), so that its SymPy import overlaps the rest of start-up, and passes it to whatever
  grades: the session, the drills, lint and `check`, the way the clock is passed.
- Each check waits at most `$ATTNQUIZ_CHECK_TIMEOUT` seconds (5 by default) once the worker is
  ready, and at most `$ATTNQUIZ_CHECK_START_TIMEOUT` (4 by default) for a worker to get ready:
  together under the 10 s promised for any input.
- On a time-out, or when the worker dies (crash, memory limit), the whole worker process group
  is killed, a fresh worker starts in the background for the next check, and the learner gets an
  invalid verdict that says so; never a correct one.
- The worker is killed by `close()`, at exit (atexit) and, on Linux, by the kernel if this
  process dies. `worker.process.WorkerProcess` is the running worker and the pipes to it.

Inside the worker the same checks run in-process (`Item.grade_in_process`), so nothing waits
on itself.
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

from engine.checking.worker.process import (
    WORKER_MODULE,
    CheckerDied,
    CheckerTimeout,
    WorkerProcess,
)
from engine.checking.worker.wire import failure_from_data, problems_from_data, verdict_from_data
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

if TYPE_CHECKING:
    from engine.cards.base import Item
    from engine.cards.typed import TypedItem

TIMEOUT_ENV = "ATTNQUIZ_CHECK_TIMEOUT"
START_TIMEOUT_ENV = "ATTNQUIZ_CHECK_START_TIMEOUT"
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_START_TIMEOUT_S = 4.0
# What the learner reads when the checker failed on an answer (its error text is not for them).
COULD_NOT_CHECK = "could not check this: the checker failed on it; try another form"


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
    def ask(
        self, request: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any] | CheckerFailure: ...
    def start(self) -> None: ...
    def close(self) -> None: ...


def grade_card(checker: Checker, item: Item, answer: str) -> Verdict:
    """A card's verdict on `answer`: a typed card's from `checker` (in its worker, within the
    time bound), another kind's from the card itself. An answer that cannot be read is an
    invalid verdict that says what could not be read (the AnswerError is worded for the
    learner)."""
    from engine.cards.typed import TypedItem

    try:
        return checker.grade(item, answer) if isinstance(item, TypedItem) else item.grade(answer)
    except AnswerError as exc:
        return Verdict(correct=False, valid=False, feedback=str(exc))


class BoundedChecker:
    """Every check in this checker's own warm worker, within the time bound (see the module
    docstring). Thread-safe: one request at a time goes to the worker.

    `worker_module` is the module each worker runs as (`python -m`): the real worker by
    default. Another module may stand in for it by calling `worker.main.main(tasks=...)` with a
    task table of its own; the tests use one whose checks never end, crash or exhaust memory.
    """

    def __init__(self, worker_module: str = WORKER_MODULE) -> None:
        self._worker_module = worker_module
        self._lock = threading.RLock()
        self._worker: WorkerProcess | None = None
        self._atexit_registered = False

    # -- the public calls -------------------------------------------------------------------------
    def grade(self, item: TypedItem, answer: str) -> Verdict:
        """Grade `answer` for `item` in the worker, within the time bound.

        Raises AnswerError or BankError as the in-process grading would; any other failure is
        an invalid verdict that says the answer could not be checked.
        """
        try:
            reply = self._ask_about("grade", item, answer=answer)
        except ValueError:  # not the learner's fault, but their answer still gets a verdict
            return Verdict(correct=False, valid=False, feedback=COULD_NOT_CHECK)
        if isinstance(reply, CheckerFailure):
            return Verdict(correct=False, valid=False, feedback=reply.message)
        try:
            return verdict_from_data(reply.get("verdict"))
        except ValueError:  # Verdict refuses a correct but unreadable answer with ValueError too
            return Verdict(
                correct=False,
                valid=False,
                feedback="could not check this: the checker's reply was bad",
            )

    def check_bank(self, item: TypedItem) -> list[str]:
        """Author-facing problems of `item`'s stated answers (lint), re-checked in the worker."""
        # Lint checks the answer and every mistake: each of those checks gets the full time.
        answers = 2 + len(item.mistakes)
        reply = self._ask_about("check_bank", item, timeout=check_timeout() * answers)
        if isinstance(reply, CheckerFailure):
            return [f"cannot re-check the stated answers: {reply.message}"]
        try:
            return problems_from_data(reply)
        except ValueError:
            return ["cannot re-check the stated answers: the checker sent no list of problems"]

    def ask(
        self, request: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any] | CheckerFailure:
        """Send one request to the worker and return its reply, within `timeout` (the check
        time-out by default). A failure the worker reports is raised as the in-process check
        would raise it (AnswerError, BankError, ValueError); a check that could not be done is a
        CheckerFailure.
        """
        reply = self._exchange(request, check_timeout() if timeout is None else timeout)
        if isinstance(reply, CheckerFailure):
            return reply
        if reply.get("error") is None:
            return reply
        try:
            failure = failure_from_data(reply)
        except ValueError:
            return CheckerFailure("could not check this: the checker's reply was bad")
        if failure.error == "answer":
            raise AnswerError(failure.message)
        if failure.error == "bank":
            raise BankError(list(failure.problems or [failure.message]))
        if failure.error == "value":
            raise ValueError(failure.message)
        if failure.error == "memory":
            message = "could not check this: it needs too much memory; try a simpler form"
            return CheckerFailure(message, cause="memory")
        # The worker's own failure, "TypeError: ...": its name says enough, its text is not for
        # the learner.
        return CheckerFailure(f"{COULD_NOT_CHECK} ({failure.message.split(':', 1)[0].strip()})")

    def start(self) -> None:
        """Start the worker now, without waiting for it, if it is not running already."""
        with self._lock, contextlib.suppress(CheckerDied):  # a check will report it
            self._running_worker()

    def close(self) -> None:
        """Kill the worker (if any); the next check starts a new one."""
        with self._lock:
            if self._worker is not None:
                self._worker.kill()
                self._worker = None

    def pid(self) -> int | None:
        """The worker's process id, or None when none is running (for tests and diagnostics)."""
        with self._lock:
            return None if self._worker is None else self._worker.pid

    # -- requests and replies ---------------------------------------------------------------------
    def _ask_about(
        self, op: str, item: TypedItem, *, answer: str | None = None, timeout: float | None = None
    ) -> dict[str, Any] | CheckerFailure:
        request: dict[str, Any] = {
            "op": op,
            "kind": item.kind,
            "item": item.model_dump(mode="json"),
        }
        if answer is not None:
            request["answer"] = answer
        return self.ask(request, timeout=timeout)

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any] | CheckerFailure:
        """Send one request and wait for its reply, killing and replacing the worker on failure."""
        with self._lock:
            try:
                worker = self._running_worker()
                if worker.exited():
                    # It died while idle (a resource limit, the OOM killer): not this answer's
                    # fault.
                    self._replace(worker)
                    worker = self._running_worker()
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
                return CheckerFailure(self._died(worker), cause="died")
            try:
                return worker.exchange(request, time.monotonic() + timeout)
            except CheckerTimeout:
                self._replace(worker)
                return CheckerFailure(
                    f"could not check this in time: checking took longer than {timeout:g} s "
                    "and was stopped; try a simpler form of your answer",
                    cause="timeout",
                )
            except CheckerDied:
                return CheckerFailure(self._died(worker), cause="died")
            except BaseException:
                # Ctrl-C (or anything else) mid-request: the reply would come to nobody.
                worker.kill()
                self._worker = None
                raise

    def _died(self, worker: WorkerProcess) -> str:
        code = worker.kill()
        self._replace(worker)
        if code is not None and code < 0:
            how = f"killed by signal {-code}"
            if -code in (signal.SIGKILL, getattr(signal, "SIGXCPU", 0)):
                how += ", perhaps past its memory or time limit"
        else:
            how = f"exit code {code}"
        return f"could not check this: the checker stopped ({how}); try again or a simpler form"

    def _running_worker(self) -> WorkerProcess:
        if self._worker is not None and self._worker.owner != os.getpid():
            self._worker = None  # inherited through fork: it belongs to the parent
        if self._worker is None:
            try:
                self._worker = WorkerProcess(self._worker_module)
            except OSError as exc:  # no Python to run, no processes left, ...
                raise CheckerDied(str(exc)) from None
            if not self._atexit_registered:
                atexit.register(self.close)
                self._atexit_registered = True
        return self._worker

    def _replace(self, worker: WorkerProcess) -> None:
        """Kill `worker` and start a fresh one right away, so it is warm for the next check."""
        worker.kill()
        if self._worker is worker:
            self._worker = None
        with contextlib.suppress(CheckerDied):  # the next check reports it
            self._running_worker()


def check_timeout() -> float:
    return _seconds_from_env(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)


def start_timeout() -> float:
    return _seconds_from_env(START_TIMEOUT_ENV, DEFAULT_START_TIMEOUT_S)


def _seconds_from_env(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if 0 < value < 3600 else default
