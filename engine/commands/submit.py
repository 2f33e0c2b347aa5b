"""`attnquiz submit FILE`: check the learner's attention or softmax in a sandbox, then time it."""

from __future__ import annotations

import json
from pathlib import Path

from engine.commands.errors import EXIT_NEGATIVE, EXIT_OK
from engine.errors import UsageError


def run_submit(
    path: Path, func: str | None, no_time: bool, as_json: bool, memory_mb: int, seconds: float
) -> int:
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    from attention_ref.bounded_read import read_at_most
    from attention_ref.discovery import MAX_SOURCE_BYTES

    try:
        too_large = read_at_most(path, MAX_SOURCE_BYTES) is None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if too_large:
        raise UsageError(f"{path} is larger than 1 MB; submit the function alone")
    from attention_ref.grading import grade_submission
    from attention_ref.sandbox import Limits

    limits = Limits(memory_bytes=memory_mb * 2**20, seconds_per_call=seconds)
    grade = grade_submission(path, func, limits=limits)
    if grade.passed and not no_time:
        from attention_ref.timing import time_submission

        grade.timing = time_submission(path, grade.function, grade.target, limits=limits)
    if as_json:
        print(json.dumps(grade.to_json(), ensure_ascii=False))
    else:
        from engine.ui.submit_report import show_grade

        show_grade(grade)
    return EXIT_OK if grade.passed else EXIT_NEGATIVE
