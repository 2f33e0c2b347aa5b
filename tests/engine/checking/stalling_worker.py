"""A stand-in checking worker for the tests: the real one, except that it never answers a
`check_step` request for the line `STALLING_LINE` (and so must be killed by the client), and
dies at once on the line `CRASHING_LINE`.

Run as `python -m tests.engine.checking.stalling_worker`, in place of `engine.checking.worker`.
"""

from __future__ import annotations

import json
import os
import sys
import time

from engine.checking.worker import main as worker

STALLING_LINE = "= Var(q·k)/d_k + stall"
CRASHING_LINE = "= Var(q·k)/d_k + crash"
_real_answer = worker.answer_request


def answer_request(line: bytes) -> worker.Reply:
    try:
        request = json.loads(line)
    except ValueError:
        request = None
    step = request.get("step") if isinstance(request, dict) else None
    if step == CRASHING_LINE:
        os._exit(70)
    while step == STALLING_LINE:
        time.sleep(3600)
    return _real_answer(line)


if __name__ == "__main__":
    worker.answer_request = answer_request
    sys.exit(worker.main())
