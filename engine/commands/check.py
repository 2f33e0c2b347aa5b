"""`attnquiz check SET ITEM --answer TEXT`: grade one answer; the schedule is not touched.

`attnquiz check SET DRILL --step N --answer TEXT` grades one line of a derivation drill: it is
judged as step N (1-based) of the drill, as if steps 1..N-1 had been done as the drill expects,
in the bounded checking worker the drills use: correct when it is a valid step from that state
which reaches step N's result (it may go further). Restating the line before is not a step.

Both run in the grading commands' frame, store nothing, and report the verdict the same way: a
line (and the expected answer when it is wrong), or JSON; exit 0 right, 1 wrong.
"""

from __future__ import annotations

from pathlib import Path

from engine.checking.worker.bounded import Checker, grade_card
from engine.commands.frame import Frame, run_in_frame
from engine.errors import UsageError
from engine.exit_codes import verdict_code
from engine.ui.json_output import print_json
from engine.verdict import Verdict


def run_check(
    set_name: str,
    item_id: str,
    answer: str,
    as_json: bool,
    data_dir: Path | None,
    step: int | None = None,
    *,
    checker: Checker | None = None,
) -> int:
    from engine.ui.script_line import as_typed

    answer = as_typed(answer)

    # The checker imports SymPy in its own process while this one loads the bank.
    def check(frame: Frame) -> int:
        if step is not None:  # `ITEM` names a derivation drill: grade one of its lines
            return _check_step(frame, set_name, item_id, step, answer, as_json)
        return _check(frame, set_name, item_id, answer, as_json)

    return run_in_frame(check, data_dir, checker, kept="nothing is stored")


def _check(frame: Frame, set_name: str, item_id: str, answer: str, as_json: bool) -> int:
    from engine.bank.catalog import open_set
    from engine.cards.exercise import ExerciseItem
    from engine.ui.describe import shown_answer

    qset = open_set(set_name, frame.folder)
    item = qset.item(item_id)
    if item is None and item_id in qset.successors:
        now = ", ".join(qset.successors[item_id])
        raise UsageError(f"item {item_id!r} of set {set_name} was retired; it is now: {now}")
    if item is None:
        raise UsageError(f"set {set_name} has no item {item_id!r} (see: attnquiz list {set_name})")
    if item.self_rated:
        raise UsageError(f"{item_id!r} is a self-rated card: there is no answer to check")
    if isinstance(item, ExerciseItem):
        from engine.exercise_attempts import grade_attempt

        verdict = grade_attempt(item, answer)  # the answer is the path of the learner's file
    else:
        verdict = grade_card(frame.checker, item, answer)
    return report_verdict(verdict, item_id, shown_answer(item), as_json)


def _check_step(
    frame: Frame, set_name: str, drill_id: str, number: int, answer: str, as_json: bool
) -> int:
    from engine.drills.chain import judge_at
    from engine.drills.loader import open_drill_set

    drills = open_drill_set(set_name, frame.folder)
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
    judged = judge_at(frame.checker, drill, number - 1, answer, skip_ahead=False)
    verdict = judged.verdict.to_verdict()
    return report_verdict(verdict, drill_id, step.expect, as_json, {"step": number})


def report_verdict(
    verdict: Verdict,
    item_id: str,
    expected: str,
    as_json: bool,
    extra: dict[str, object] | None = None,
) -> int:
    """Print the verdict on `item_id` (as JSON, with `extra` fields), or its line and, when it is
    wrong, `expected`; its exit code."""
    if as_json:
        print_json({**verdict.to_json(item_id), **(extra or {})})
    else:
        from engine.ui.describe import verdict_line
        from engine.ui.literal import plain

        print(plain(verdict_line(verdict)))
        if not verdict.correct:
            print(f"expected: {plain(expected)}")
    return verdict_code(verdict.correct)
