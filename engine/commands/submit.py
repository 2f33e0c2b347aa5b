"""`attnquiz submit FILE`: check the learner's attention or softmax in a sandbox, then time it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import UsageError
from engine.exit_codes import verdict_code
from engine.ui.json_output import print_json

if TYPE_CHECKING:
    from attention_ref.grading import Grade


def run_submit(
    path: Path,
    func: str | None,
    no_time: bool,
    as_json: bool,
    memory_mb: int,
    seconds: float,
    *,
    watch: bool = False,
) -> int:
    _readable_source(path)
    _check_function_name(func)
    from attention_ref.grading import grade_submission
    from attention_ref.sandbox import Limits

    limits = Limits(memory_bytes=memory_mb * 2**20, seconds_per_call=seconds)
    if watch:
        from engine.commands.watch import grade_until_passed
        from engine.ui.console import make_console
        from engine.ui.submit_report import show_grade

        return grade_until_passed(
            path, lambda: grade_submission(path, func, limits=limits), show_grade, make_console()
        )
    grade = grade_submission(path, func, limits=limits)
    if grade.passed and not no_time:
        from attention_ref.timing import time_submission

        grade.timing = time_submission(
            path,
            grade.function,
            grade.target,
            plan=grade.plan,
            limits=limits,
            progress=_progress,
            seed=grade.seed or 0,
        )
        _fail_if_timed_output_wrong(grade)
    if as_json:
        print_json(grade.to_json())
    else:
        from engine.ui.submit_report import show_grade

        show_grade(grade)
    return verdict_code(grade.passed)


def run_submit_exercise(
    path: Path,
    exercise_id: str,
    data_dir: Path | None,
    *,
    func: str | None,
    as_json: bool,
    watch: bool,
    no_time: bool = False,
    memory_mb: int,
    seconds: float,
) -> int:
    """`submit FILE --exercise ID`: grade the file as that exercise (never touches the schedule)."""
    source = _readable_source(path)
    _check_function_name(func)
    from attention_ref.sandbox import Limits
    from engine.commands.exercises import find_exercise

    set_name, item = find_exercise(exercise_id, data_dir)
    limits = Limits(memory_bytes=memory_mb * 2**20, seconds_per_call=seconds)

    def grade_saved_version() -> Grade:
        """Watch mode: the file as saved now (it may be unreadable for a moment mid-save)."""
        from engine.submission_file import UnreadableSubmission, read_submission

        try:
            text = read_submission(path)
        except UnreadableSubmission as error:
            from attention_ref.grading import Grade

            return Grade(False, "error", item.id, func or item.function, [], [], message=str(error))
        return item.grade_source(text, path, limits=limits, function=func)

    def graded_and_timed() -> Grade:
        grade = item.grade_source(source, path, limits=limits, function=func)
        if grade.passed and not no_time:
            grade.timing = item.time_source(
                source,
                path,
                function=func,
                limits=limits,
                progress=_progress,
            )
            _fail_if_timed_output_wrong(grade)
        return grade

    if as_json and not watch:
        grade = graded_and_timed()
        print_json(grade.to_json())
        return verdict_code(grade.passed)
    from engine.ui.console import make_console
    from engine.ui.exercise_report import show_exercise_grade

    console = make_console()

    def show(grade: Grade) -> None:
        show_exercise_grade(grade, item, set_name, console)

    if watch:
        from engine.commands.watch import grade_until_passed

        return grade_until_passed(path, grade_saved_version, show, console)
    grade = graded_and_timed()
    show(grade)
    return verdict_code(grade.passed)


def _progress(text: str) -> None:
    """Timing progress, on stderr so that --json output stays clean."""
    print(text, file=sys.stderr, flush=True)


def _fail_if_timed_output_wrong(grade: Grade) -> None:
    """Right on the battery, wrong at the timing sizes: not a pass."""
    if grade.timing and grade.timing.get("wrong_output"):
        grade.passed, grade.verdict = False, "wrong"
        grade.message = grade.timing["stopped"]


def _readable_source(path: Path) -> str:
    """The file's text; a file that can never be graded (missing, not a file, over 1 MB, not
    UTF-8) is a usage error, exit 2, before any sandbox starts."""
    from engine.submission_file import UnreadableSubmission, read_submission

    try:
        return read_submission(path)
    except UnreadableSubmission as error:
        raise UsageError(str(error)) from None


def _check_function_name(func: str | None) -> None:
    """`--func` names a function (or a class's method) of the file, as Python spells names."""
    parts = func.split(".") if func else []
    if len(parts) > 2 or not all(part.isidentifier() for part in parts):
        raise UsageError(
            f"--func {func!r} is not a Python function name; give one such as attention or "
            "Model.forward"
        )
