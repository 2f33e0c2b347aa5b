"""`attnquiz submit FILE`: check the learner's attention or softmax in a sandbox, then time it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.commands.errors import EXIT_NEGATIVE, EXIT_OK
from engine.errors import UsageError


def run_submit(
    path: Path, func: str | None, no_time: bool, as_json: bool, memory_mb: int, seconds: float
) -> int:
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    from attention_ref.grading import grade_submission
    from attention_ref.sandbox import Limits

    limits = Limits(memory_bytes=memory_mb * 2**20, seconds_per_call=seconds)
    grade = grade_submission(path, func, limits=limits)
    if grade.passed and not no_time:
        from attention_ref.timing import time_submission

        def progress(text: str) -> None:
            print(text, file=sys.stderr, flush=True)

        grade.timing = time_submission(
            path,
            grade.function,
            grade.target,
            plan=grade.plan,
            limits=limits,
            progress=progress,
            seed=grade.seed,
        )
        if grade.timing.get("wrong_output"):
            # Right on the battery, wrong at the timing sizes: not a pass.
            grade.passed, grade.verdict = False, "wrong"
            grade.message = grade.timing["stopped"]
    if as_json:
        print(json.dumps(grade.to_json(), ensure_ascii=False))
    else:
        from engine.ui.submit_report import show_grade

        show_grade(grade)
    return EXIT_OK if grade.passed else EXIT_NEGATIVE
