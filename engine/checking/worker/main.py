"""The checking worker: a child process that grades typed answers with SymPy, one line at a time.

`bounded` starts it as `python -m engine.checking.worker --parent PID` and may
kill it at any moment, which is what puts a hard time bound on SymPy work, even work stuck inside
C code. The worker imports SymPy and runs one small check before it says it is ready, so a worker
started early makes the first real check as fast as the later ones.

Protocol: JSON objects, one per line, UTF-8, on stdin (requests) and stdout (replies).

- First the worker sends `{"ready": true, "pid": PID, "protocol": 1}`.
- Request: `{"id": N, "op": OP, "kind": KIND, "item": ITEM, "answer": TEXT}`, where ITEM is the
  item's `model_dump(mode="json")` and KIND its `kind`. OP is `grade` (reply `{"id": N,
  "verdict": {...Verdict fields...}}`), `value` (the number an item's answer stands for, reply
  `{"id": N, "value": FLOAT}`) or `check_bank` (reply `{"id": N, "problems": [...]}`).
- Request: `{"id": N, "op": "check_step", "previous": TEXT|null, "step": TEXT, "expected":
  TEXT|null, "assumptions": {...}, "mistakes": [[VALUE, MESSAGE], ...]}` checks one line of a
  derivation (`engine.checking.derivation.check_step`); reply `{"id": N, "step_verdict":
  {...StepVerdict fields...}}`. `worker_wire` writes and reads both as plain JSON.
- A failure is `{"id": N, "error": CODE, "message": TEXT}`: `answer` (AnswerError, the learner's
  text), `bank` (BankError, with `problems`), `value` (ValueError), `memory`, `internal`, or
  `protocol` (a request the worker does not understand).

Only protocol lines reach stdout: whatever SymPy or C code prints lands on stderr, which the
client discards. Answer text is data for the checker; it never chooses what the worker does.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import signal
import sys
import time
import warnings
from typing import IO, Any

from engine.exit_codes import EXIT_OK

PROTOCOL = 1
# Resource limits of the worker process. The client's time-out is the real bound on one check;
# these only stop a runaway worker whose parent is gone or stuck.
MEMORY_LIMIT_BYTES = 2 * 1024**3
CPU_LIMIT_SECONDS = 600  # over the worker's whole life: about 10^5 ordinary checks
# Setting this to 1 in the worker's environment enables the `stall` request, which the tests
# use to simulate a check that never ends. Nothing a learner types can reach it.
TEST_OPS_ENV = "ATTNQUIZ_CHECKER_TEST_OPS"

Reply = dict[str, Any]


def main(argv: list[str] | None = None) -> int:
    options = _parse_args(argv)
    replies = _take_over_stdout()
    requests = _take_over_stdin()
    _die_with_parent(options.parent)
    _limit_resources()
    # Ctrl-C belongs to the parent: it ends the session, then kills this worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.simplefilter("ignore")
    _warm_up()
    _send(replies, {"ready": True, "pid": os.getpid(), "protocol": PROTOCOL})
    for line in requests:
        _send(replies, answer_request(line))
    return EXIT_OK


def answer_request(line: bytes) -> Reply:
    """The reply to one request line. Never raises, except to end the process."""
    try:
        request = json.loads(line)
    except ValueError:
        return {"id": None, "error": "protocol", "message": "a request is one JSON object"}
    if not isinstance(request, dict):
        return {"id": None, "error": "protocol", "message": "a request is one JSON object"}
    reply = {"id": request.get("id")}
    try:
        reply.update(_run(request))
    except MemoryError:
        reply.update(error="memory", message="checking this needs more memory than allowed")
    except RecursionError:
        reply.update(error="internal", message="the expression is nested too deeply")
    except Exception as exc:
        reply.update(_failure(exc))
    return reply


def _run(request: dict[str, Any]) -> Reply:
    from engine.cards.typed import TypedItem

    op = request.get("op")
    if op == "stall" and os.environ.get(TEST_OPS_ENV) == "1":
        _stall(str(request.get("mode", "sleep")))
    if op == "check_step":
        return _check_step(request)
    if op not in {"grade", "value", "check_bank"}:
        return {"error": "protocol", "message": f"unknown request {op!r}"}
    item = _item(request.get("kind"), request.get("item"))
    if not isinstance(item, TypedItem):
        return {"error": "protocol", "message": f"no typed item of kind {request.get('kind')!r}"}
    if op == "grade":
        answer = request.get("answer")
        if not isinstance(answer, str):
            return {"error": "protocol", "message": "the answer must be a string"}
        return {"verdict": dataclasses.asdict(item.grade_in_process(answer))}
    if op == "value":
        from engine.cards.typed import NumberItem

        if not isinstance(item, NumberItem):
            return {"error": "protocol", "message": "only number items have a value"}
        return {"value": item.expected_value()}
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


def _item(kind: object, data: object) -> object:
    from pydantic import ValidationError

    from engine.cards.registry import KINDS

    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(data, dict):
        return None
    try:
        return cls.model_validate(data)
    except ValidationError:
        return None


def _failure(exc: Exception) -> Reply:
    from engine.errors import AnswerError, BankError

    if isinstance(exc, AnswerError):
        return {"error": "answer", "message": str(exc)}
    if isinstance(exc, BankError):
        return {"error": "bank", "message": str(exc), "problems": exc.problems}
    if isinstance(exc, ValueError):
        return {"error": "value", "message": str(exc)}
    return {"error": "internal", "message": f"{type(exc).__name__}: {exc}"}


def _stall(mode: str) -> None:
    """Test only: a check that never ends, in Python (`sleep`) or inside C code (`spin`), or one
    that kills the worker (`crash`) or exhausts its memory (`hog`)."""
    if mode == "crash":
        os._exit(70)
    if mode == "hog":
        hoard = bytearray(MEMORY_LIMIT_BYTES)  # more than the limit allows, with the interpreter
        del hoard
    if mode == "spin":
        # Catastrophic backtracking: the regular-expression engine (C) runs for ages.
        re.fullmatch(r"(a|aa)*c", "a" * 200)
    while True:
        time.sleep(3600)


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
