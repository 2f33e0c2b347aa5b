"""A coding exercise answered inside a review session.

In the interactive session a due exercise opens the learner's editor on their own copy of it
(`<store>/exercises/<set>/<id>.py`: the starter the first time, their last attempt after that)
and grades the file once the editor closes; in scripted mode the answer line is the path of a
file. Either way the file is graded in the sandbox and the verdict suggests the rating (a pass
is Good, or Hard after a hint; a failure is Again). A path that names no readable file is not
an answer: the verdict says so and is not valid, so nothing is logged.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.cards.exercise import ExerciseItem
from engine.errors import UsageError
from engine.paths import expand_home
from engine.submission_file import UnreadableSubmission, read_submission
from engine.verdict import Verdict


def attempt_file(store_folder: Path, set_name: str, item: ExerciseItem) -> Path:
    """The learner's own copy of the exercise, made from the starter the first time."""
    folder = store_folder / "exercises" / set_name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{item.id}.py"
    if not path.exists():
        path.write_text(item.starter, encoding="utf-8")
    return path


def edit(path: Path) -> None:
    """Open $VISUAL or $EDITOR (click's choice when neither is set) on the file and wait; an
    editor that cannot be started is a UsageError (the session ends, every answer saved)."""
    from engine.ui.editor import run_editor

    run_editor(filename=str(path), editor=os.environ.get("VISUAL") or None)


def grade_attempt(item: ExerciseItem, answer: str) -> Verdict:
    """The verdict on the file whose path is `answer`."""
    text = answer.strip()
    if not text:
        return Verdict(
            correct=False, valid=False, feedback=f"type the path of your file with {item.signature}"
        )
    try:
        path = expand_home(Path(text))
        source = read_submission(path)
    except (UnreadableSubmission, UsageError) as error:
        return Verdict(
            correct=False,
            valid=False,
            feedback=f"{error}; type the path of the file with your {item.signature}",
        )
    grade = item.grade_source(source, path)
    passed = sum(case.passed for case in grade.cases)
    summary = f"{path.name}: {passed}/{len(grade.cases)} cases pass" if grade.cases else path.name
    if grade.passed:
        return Verdict(correct=True, interpreted_as=summary, feedback="", score=1.0)
    reasons = [item.mistake_words(name) for name in grade.diagnosis]
    failed = next((case for case in grade.cases if not case.passed), None)
    if not reasons:
        reasons.append(
            grade.message or (f"{failed.name}: {failed.message}" if failed else grade.verdict)
        )
    return Verdict(correct=False, interpreted_as=summary, feedback="; ".join(reasons))
