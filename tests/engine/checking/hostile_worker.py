"""A stand-in checking worker for the tests: the real worker, with a task table of its own whose
checks misbehave on a few marked inputs, so that the tests can watch the checker stop them.

- `grade` of an item whose id is one of `MISBEHAVIOURS`: a check that never ends, in Python
  (`sleeps`) or inside C code (`spins`), one that kills the worker (`crashes`), one that needs
  more memory than the worker may have (`hogs`), or one answered with a failure that breaks the
  wire format (`garbles`). Any other item is graded as usual.
- `check_step` of the line `STALLING_LINE` never ends, and of `CRASHING_LINE` kills the worker;
  any other line is checked as usual.

Run as `python -m tests.engine.checking.hostile_worker`, through
`BoundedChecker(worker_module=MODULE)`. The real worker has no such behaviour: it runs its
own table, `engine.checking.worker.main.TASKS`.
"""

from __future__ import annotations

import os
import re
import sys
import time
from typing import Any

from engine.checking.worker import main as worker

MODULE = "tests.engine.checking.hostile_worker"
MISBEHAVIOURS = ("sleeps", "spins", "crashes", "hogs", "garbles")
STALLING_LINE = "= Var(q·k)/d_k + stall"
CRASHING_LINE = "= Var(q·k)/d_k + crash"


def never_ends() -> None:
    while True:
        time.sleep(3600)


def grade(request: dict[str, Any]) -> worker.Reply:
    item = request.get("item")
    how = item.get("id") if isinstance(item, dict) else None
    if how == "garbles":
        return {"error": "bank", "message": "m", "problems": [1]}  # problems are strings
    if how == "crashes":
        os._exit(70)
    if how == "hogs":
        hoard = bytearray(worker.MEMORY_LIMIT_BYTES)  # more than the limit, with the interpreter
        del hoard
    if how == "spins":
        # Catastrophic backtracking: the regular-expression engine (C) runs for ages.
        re.fullmatch(r"(a|aa)*c", "a" * 200)
    if how in MISBEHAVIOURS:
        never_ends()
    return worker.TASKS["grade"](request)


def check_step(request: dict[str, Any]) -> worker.Reply:
    if request.get("step") == CRASHING_LINE:
        os._exit(70)
    if request.get("step") == STALLING_LINE:
        never_ends()
    return worker.TASKS["check_step"](request)


TASKS = {**worker.TASKS, "grade": grade, "check_step": check_step}

if __name__ == "__main__":
    sys.exit(worker.main(tasks=TASKS))
