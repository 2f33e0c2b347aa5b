"""Checking a derivation step with a hard time bound, in the warm checking worker.

`check_step` here takes the checker, then the same arguments as
`engine.checking.derivation.check_step`, and gives the same `StepVerdict`; with a
`engine.checking.worker.bounded.BoundedChecker` the work runs in its worker process, which is killed
(and replaced in the background) when a line takes longer than `$ATTNQUIZ_CHECK_TIMEOUT` s.
So a pathological line (huge powers of sums, a slow cancellation) costs the learner one short
wait, never a hung drill or the machine's memory.

A line that could not be checked, for whatever reason, is never correct: it gets an unchecked
verdict that says so. Author errors (an unreadable expected step or definition) raise BankError
as in-process checking does.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.checking.derivation.step import Assumptions, StepVerdict, unchecked
from engine.checking.worker.bounded import Checker, CheckerFailure, check_timeout
from engine.checking.worker.wire import StepRequest, request_to_data, step_verdict_from_data
from engine.errors import AnswerError

TIMED_OUT = "could not check this step in time ({seconds:g} s); write it more simply"
TOO_BIG = "could not check this step: it needs too much memory; write it more simply"
COULD_NOT_CHECK = "could not check this step: the checker failed on it; write it another way"


def check_step(
    checker: Checker,
    previous: str | None,
    step: str,
    *,
    expected: str | None = None,
    assumptions: Assumptions | None = None,
    mistakes: Sequence[tuple[str, str]] = (),
) -> StepVerdict:
    """Check `step` as the line after `previous`, by `checker` (in its worker, within the check
    time-out, for a `BoundedChecker`).

    The other arguments are those of `engine.checking.derivation.check_step`.
    """
    request = StepRequest(
        previous=previous,
        step=step,
        expected=expected,
        assumptions=assumptions or Assumptions(),
        mistakes=tuple((str(value), str(message)) for value, message in mistakes),
    )
    try:
        reply = checker.ask(request_to_data(request))
    except AnswerError as exc:  # the worker gives verdicts on lines; this is only a safety net
        return StepVerdict(readable=False, valid=False, reaches_expected=False, message=str(exc))
    except ValueError:  # not the learner's fault, but their line still gets a verdict
        return unchecked(COULD_NOT_CHECK)
    if isinstance(reply, CheckerFailure):
        return unchecked(_failure_message(reply))
    try:
        return step_verdict_from_data(reply.get("step_verdict"))
    except ValueError:
        return unchecked("could not check this step: the checker's reply was bad")


def _failure_message(failure: CheckerFailure) -> str:
    if failure.cause == "timeout":
        return TIMED_OUT.format(seconds=check_timeout())
    if failure.cause == "memory":
        return TOO_BIG
    return failure.message.replace("could not check this", "could not check this step", 1)
