"""The checking worker: a child process that grades typed answers with SymPy, one line at a time.

`bounded` starts it as `python -m engine.checking.worker --parent PID` and may
kill it at any moment, which is what puts a hard time bound on SymPy work, even work stuck inside
C code. The worker imports SymPy and runs one small check before it says it is ready, so a worker
started early makes the first real check as fast as the later ones.

Protocol: JSON objects, one per line, UTF-8, on stdin (requests) and stdout (replies).

- First the worker sends `{"ready": true, "pid": PID, "protocol": 1}`.
- Request: `{"id": N, "op": OP, "kind": KIND, "item": ITEM, "answer": TEXT}`, where ITEM is the
  item's `model_dump(mode="json")` and KIND its `kind`. OP is `grade` (reply `{"id": N,
  "verdict": {...Verdict fields...}}`) or `check_bank` (without `answer`; reply `{"id": N,
  "problems": [...]}`).
- Request: `{"id": N, "op": "check_step", "previous": TEXT|null, "step": TEXT, "expected":
  TEXT|null, "assumptions": {...}, "mistakes": [[VALUE, MESSAGE], ...]}` checks one line of a
  derivation (`engine.checking.derivation.check_step`); reply `{"id": N, "step_verdict":
  {...StepVerdict fields...}}`. `worker_wire` writes and reads both as plain JSON.
- A failure is `{"id": N, "error": CODE, "message": TEXT}`: `answer` (AnswerError, the learner's
  text), `bank` (BankError, with `problems`), `value` (ValueError), `memory`, `internal`, or
  `protocol` (a request the worker does not understand).

What each OP does is the worker's task table, `TASKS`. `main(tasks=...)` runs a worker with a
table of its own: a module that calls it can stand in for this one (`BoundedChecker(
worker_module=...)`), which is how the tests get a worker whose checks sleep, spin, crash or
exhaust memory without any such request existing in the real worker.

Only protocol lines reach stdout: whatever SymPy or C code prints lands on stderr, which the
client discards. Answer text is data for the checker; it never chooses what the worker does.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import os
import signal
import sys
import warnings
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import IO, TYPE_CHECKING, Any

from engine.exit_codes import EXIT_OK

if TYPE_CHECKING:
    from engine.cards.typed import TypedItem

PROTOCOL = 1
# Resource limits of the worker process. The client's time-out is the real bound on one check;
# these only stop a runaway worker whose parent is gone or stuck.
MEMORY_LIMIT_BYTES = 2 * 1024**3
CPU_LIMIT_SECONDS = 600  # over the worker's whole life: about 10^5 ordinary checks

Reply = dict[str, Any]
# One request's work: the request in, the reply's fields out (the reply's `id` is added around
# it). It may raise as the in-process check would; `answer_request` words the failure.
Task = Callable[[dict[str, Any]], Reply]


def main(argv: list[str] | None = None, *, tasks: Mapping[str, Task] | None = None) -> int:
    """Run the worker until its input ends; `tasks` is the task table (`TASKS` by default)."""
    tasks = TASKS if tasks is None else tasks
    options = _parse_args(argv)
    replies = _take_over_stdout()
    requests = _take_over_stdin()
    _die_with_parent(options.parent)
    _limit_resources()
    # Ctrl-C belongs to the parent: it ends the session, then kills this worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.simplefilter("ignore")
    # SymPy's import makes hundreds of thousands of long-lived objects: without the cycle
    # collector running over and over meanwhile, and with them frozen out of every later
    # collection, a worker gets ready with about 15% less CPU and later checks collect less.
    gc.disable()
    _warm_up()
    gc.freeze()
    gc.enable()
    _send(replies, {"ready": True, "pid": os.getpid(), "protocol": PROTOCOL})
    for line in requests:
        _send(replies, answer_request(line, tasks))
    return EXIT_OK


def answer_request(line: bytes, tasks: Mapping[str, Task] | None = None) -> Reply:
    """The reply to one request line, by the task its `op` names in `tasks` (`TASKS` by
    default). Never raises, except to end the process."""
    try:
        request = json.loads(line)
    except ValueError:
        return {"id": None, "error": "protocol", "message": "a request is one JSON object"}
    if not isinstance(request, dict):
        return {"id": None, "error": "protocol", "message": "a request is one JSON object"}
    reply = {"id": request.get("id")}
    op = request.get("op")
    task = (TASKS if tasks is None else tasks).get(op) if isinstance(op, str) else None
    if task is None:
        reply.update(error="protocol", message=f"unknown request {op!r}")
        return reply
    try:
        reply.update(task(request))
    except MemoryError:
        reply.update(error="memory", message="checking this needs more memory than allowed")
    except RecursionError:
        reply.update(error="internal", message="the expression is nested too deeply")
    except Exception as exc:
        reply.update(_failure(exc))
    return reply


def _grade(request: dict[str, Any]) -> Reply:
    item, answer = _typed_item(request, with_answer=True)
    assert answer is not None  # the wire format requires it
    return {"verdict": dataclasses.asdict(item.grade_in_process(answer))}


def _check_bank(request: dict[str, Any]) -> Reply:
    item, _ = _typed_item(request, with_answer=False)
    return {"problems": item.check_bank_in_process()}


def _check_step(request: dict[str, Any]) -> Reply:
    from engine.checking.derivation import check_step
    from engine.checking.worker.wire import request_from_data, step_verdict_to_data

    try:
        call = request_from_data(request)
    except ValueError as exc:
        return {"error": "protocol", "message": f"a bad check_step request: {exc}"}
    verdict = check_step(
        call.previous,
        call.step,
        expected=call.expected,
        assumptions=call.assumptions,
        mistakes=call.mistakes,
    )
    return {"step_verdict": step_verdict_to_data(verdict)}


class _ProtocolError(Exception):
    """A request this worker cannot understand; its text is the reply's message."""


def _typed_item(request: dict[str, Any], *, with_answer: bool) -> tuple[TypedItem, str | None]:
    """The typed item a request is about, then (`with_answer`) its answer; _ProtocolError if
    the request names no typed item or has no text answer."""
    from pydantic import ValidationError

    from engine.cards.registry import KINDS
    from engine.cards.typed import TypedItem
    from engine.checking.worker.wire import item_request_from_data

    try:
        call = item_request_from_data(request, with_answer=False)
    except ValueError as exc:
        raise _ProtocolError(str(exc)) from None
    cls = KINDS.get(call.kind)
    item = None
    if cls is not None:
        with contextlib.suppress(ValidationError):
            item = cls.model_validate(call.item)
    if not isinstance(item, TypedItem):
        raise _ProtocolError(f"no typed item of kind {call.kind!r}")
    if not with_answer:
        return item, None
    try:
        return item, item_request_from_data(request, with_answer=True).answer
    except ValueError as exc:
        raise _ProtocolError(str(exc)) from None


def _failure(exc: Exception) -> Reply:
    from engine.errors import AnswerError, BankError

    if isinstance(exc, _ProtocolError):
        return {"error": "protocol", "message": str(exc)}
    if isinstance(exc, AnswerError):
        return {"error": "answer", "message": str(exc)}
    if isinstance(exc, BankError):
        return {"error": "bank", "message": str(exc), "problems": exc.problems}
    if isinstance(exc, ValueError):
        return {"error": "value", "message": str(exc)}
    return {"error": "internal", "message": f"{type(exc).__name__}: {exc}"}


def _warm_up() -> None:
    """Import SymPy and run each checker once, so that the first real check is fast."""
    from engine.cards import registry  # noqa: F401  (loads the item kinds)
    from engine.checking import check_expression, check_number, check_shape
    from engine.checking.derivation import Assumptions, check_step

    try:
        formula = "softmax(Q K^T / sqrt(d)) V"
        check_expression(formula, formula, positive=["d"], noncommutative=["Q", "K", "V"])
        check_number("sqrt(2)", 2**0.5, abs_tol=0.1)
        check_shape("(a, b)", "(a, b)")
        scores = Assumptions(normal_vectors=("q", "k"))
        check_step("Var(q·k)", "= Σ_a Var(q_a k_a)", expected="d_k", assumptions=scores)
    except Exception:  # a failed warm-up costs only the time it would have saved
        pass


TASKS: Mapping[str, Task] = MappingProxyType(
    {"grade": _grade, "check_bank": _check_bank, "check_step": _check_step}
)


def _send(stream: IO[bytes], reply: Reply) -> None:
    stream.write(json.dumps(reply, ensure_ascii=True, allow_nan=True).encode("ascii") + b"\n")
    stream.flush()


# -- setting up the process -----------------------------------------------------------------------
def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m engine.checking.worker")
    parser.add_argument("--parent", type=int, default=0, help="exit when this process is gone")
    return parser.parse_args(argv)


def _take_over_stdout() -> IO[bytes]:
    """Keep fd 1 for protocol lines only: anything else printed (Python or C) goes to stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol, "wb")


def _take_over_stdin() -> IO[bytes]:
    """Read requests from a private copy of fd 0, so nothing else can consume them."""
    private = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return os.fdopen(private, "rb")


def _die_with_parent(parent: int) -> None:
    """On Linux, have the kernel kill this worker when its parent dies, whatever it is doing.

    Without this, a worker whose parent was killed still exits at the end of its stdin, but
    only once its current check ends.
    """
    if sys.platform != "linux" or not parent:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request above took effect
        os._exit(0)


def _limit_resources() -> None:
    try:
        import resource
    except ImportError:  # not a POSIX system: the client's time-out still applies
        return
    for limit, value in (
        (resource.RLIMIT_AS, MEMORY_LIMIT_BYTES),
        (resource.RLIMIT_CPU, CPU_LIMIT_SECONDS),
        (resource.RLIMIT_CORE, 0),
    ):
        soft, hard = resource.getrlimit(limit)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        if soft == resource.RLIM_INFINITY or soft > value:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(limit, (value, hard))


if __name__ == "__main__":
    sys.exit(main())
