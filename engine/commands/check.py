"""`attnquiz check SET ITEM --answer TEXT`: grade one answer; the schedule is not touched."""

from __future__ import annotations

import json
from pathlib import Path

from engine.commands.context import load
from engine.commands.errors import EXIT_NEGATIVE, EXIT_OK
from engine.errors import AnswerError, UsageError
from engine.verdict import Verdict


def run_check(
    set_name: str,
    item_id: str,
    answer: str,
    as_json: bool,
    data_dir: Path | None,
    step: int | None = None,
) -> int:
    from engine.checking.bounded import start_checker

    # The checker imports SymPy in its own process while this one loads the bank.
    start_checker()
    if step is not None:  # `ITEM` names a derivation drill: grade one of its lines
        from engine.commands.check_step import run_check_step

        return run_check_step(set_name, item_id, step, answer, as_json, data_dir)
    _, qset = load(set_name, data_dir)
    item = qset.item(item_id)
    if item is None and item_id in qset.successors:
        now = ", ".join(qset.successors[item_id])
        raise UsageError(f"item {item_id!r} of set {set_name} was retired; it is now: {now}")
    if item is None:
        raise UsageError(f"set {set_name} has no item {item_id!r} (see: attnquiz list {set_name})")
    if item.self_rated:
        raise UsageError(f"{item_id!r} is a self-rated card: there is no answer to check")
    try:
        verdict = item.grade(answer)
    except AnswerError as exc:
        verdict = Verdict(correct=False, valid=False, feedback=str(exc))
    if as_json:
        print(json.dumps(verdict.to_json(item_id), ensure_ascii=False))
    else:
        from engine.ui.describe import shown_answer, verdict_line
        from engine.ui.literal import plain

        print(plain(verdict_line(verdict)))
        if not verdict.correct:
            print(f"expected: {plain(shown_answer(item))}")
    return EXIT_OK if verdict.correct else EXIT_NEGATIVE
