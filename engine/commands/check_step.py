"""`attnquiz check SET DRILL --step N --answer TEXT`: grade one line of a derivation drill.

The line is judged as step N (1-based) of the drill, as if steps 1..N-1 had been done as the
drill expects, in the bounded checking worker the drills use: correct when it is a valid step
from that state which reaches step N's result (it may go further). Restating the line before is
not a step. Nothing is stored and the schedule is not touched.
"""

from __future__ import annotations

from pathlib import Path

from engine.checking.worker.bounded import Checker
from engine.errors import UsageError
from engine.exit_codes import EXIT_NEGATIVE, EXIT_OK
from engine.ui.json_output import print_json


def run_check_step(
    checker: Checker,
    set_name: str,
    drill_id: str,
    number: int,
    answer: str,
    as_json: bool,
    data_dir: Path | None,
) -> int:
    from engine.drills.chain import judge_at
    from engine.drills.loader import open_drill_set
    from engine.paths import store_dir

    drills = open_drill_set(set_name, store_dir(data_dir))
    drill = drills.drill(drill_id)
    if drill is None:
        known = ", ".join(d.id for d in drills.drills)
        raise UsageError(f"set {set_name} has no drill {drill_id!r} (drills: {known})")
    if not 1 <= number <= len(drill.steps):
        raise UsageError(
            f"drill {drill_id!r} has steps 1 to {len(drill.steps)}, not {number}; "
            "give --step a number in that range"
        )
    step = drill.steps[number - 1]
    if not step.checked:
        raise UsageError(f"step {number} of {drill_id!r} is self-rated: there is no line to check")
    verdict = judge_at(checker, drill, number - 1, answer, skip_ahead=False).verdict.to_verdict()
    if as_json:
        print_json({**verdict.to_json(drill_id), "step": number})
    else:
        from engine.ui.describe import verdict_line

        print(verdict_line(verdict))
        if not verdict.correct:
            print(f"expected: {step.expect}")
    return EXIT_OK if verdict.correct else EXIT_NEGATIVE
