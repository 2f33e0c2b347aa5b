"""`attnquiz check SET ITEM --answer TEXT`: grade one answer; the schedule is not touched."""

from __future__ import annotations

from pathlib import Path

from engine.checking.worker.bounded import Checker
from engine.commands.frame import checker_for
from engine.errors import AnswerError, UsageError
from engine.exit_codes import EXIT_NEGATIVE, EXIT_OK
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
    with checker_for(checker) as running:
        if step is not None:  # `ITEM` names a derivation drill: grade one of its lines
            from engine.commands.check_step import run_check_step

            return run_check_step(running, set_name, item_id, step, answer, as_json, data_dir)
        return _check(running, set_name, item_id, answer, as_json, data_dir)


def _check(
    checker: Checker,
    set_name: str,
    item_id: str,
    answer: str,
    as_json: bool,
    data_dir: Path | None,
) -> int:
    from engine.bank.catalog import open_set
    from engine.cards.typed import TypedItem
    from engine.paths import store_dir

    qset = open_set(set_name, store_dir(data_dir))
    item = qset.item(item_id)
    if item is None and item_id in qset.successors:
        now = ", ".join(qset.successors[item_id])
        raise UsageError(f"item {item_id!r} of set {set_name} was retired; it is now: {now}")
    if item is None:
        raise UsageError(f"set {set_name} has no item {item_id!r} (see: attnquiz list {set_name})")
    if item.self_rated:
        raise UsageError(f"{item_id!r} is a self-rated card: there is no answer to check")
    try:
        verdict = checker.grade(item, answer) if isinstance(item, TypedItem) else item.grade(answer)
    except AnswerError as exc:
        verdict = Verdict(correct=False, valid=False, feedback=str(exc))
    if as_json:
        print_json(verdict.to_json(item_id))
    else:
        from engine.ui.describe import shown_answer, verdict_line
        from engine.ui.literal import plain

        print(plain(verdict_line(verdict)))
        if not verdict.correct:
            print(f"expected: {plain(shown_answer(item))}")
    return EXIT_OK if verdict.correct else EXIT_NEGATIVE
