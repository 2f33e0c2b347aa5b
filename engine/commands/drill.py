"""`attnquiz drill SET [NAME] [--timed | --rapid]`: derivation drills, each finished one a review.

Each drill is the card `drill-<id>` of its set, scheduled by FSRS like any other card: without
NAME the due drills run (then the new ones); finishing a drill records one review whose rating
comes from how the steps went (see `engine.drills.runner`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from engine.commands.frame import Frame, run_in_frame
from engine.drills.loader import DrillSet, open_drill_set
from engine.drills.model import CARD_PREFIX, Drill
from engine.errors import UsageError
from engine.exit_codes import EXIT_OK

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker
    from engine.drills.runner import StepResult
    from engine.drills.terminal import DrillTerminal
    from engine.schedule import CardState, Grade, Scheduling


def run_drill(
    set_name: str,
    name: str | None,
    timed: bool,
    data_dir: Path | None,
    *,
    rapid: bool = False,
    seed: int | None = None,
    checker: Checker | None = None,
) -> int:
    if timed and rapid:
        raise UsageError("choose one of --timed and --rapid")
    if seed is not None and not rapid:
        raise UsageError("--seed goes with --rapid: it replays a round of rapid-fire shapes")
    if timed:
        return _run_timed(set_name, name, data_dir, checker)
    if rapid:
        return _run_rapid(set_name, name, data_dir, seed, checker)

    def due_or_named(frame: Frame) -> int:
        return _run_due_or_named(frame, set_name, name)

    return run_in_frame(due_or_named, data_dir, checker, kept="every finished drill is saved")


def _run_due_or_named(frame: Frame, set_name: str, name: str | None) -> int:
    from engine.drills.due import due_drills
    from engine.drills.runner import DrillRun
    from engine.drills.terminal import EndOfSession
    from engine.store import ReviewRecord
    from engine.store.parameters import scheduling_for
    from engine.ui.describe import interval

    drills = open_drill_set(set_name, frame.folder)
    chosen = [_named(drills, name)] if name is not None else None
    clock = frame.clock
    store = frame.store()
    terminal = _terminal(frame.interactive)
    session_id = None
    try:
        now = clock()
        if chosen is None:
            cards = store.cards(drills.name, [d.card_id for d in drills.drills])
            chosen = due_drills(drills.drills, cards, now)
        if not chosen:
            terminal.say(f"no drills of set {drills.name} are due; come back later")
            return EXIT_OK
        # The learner's fitted FSRS parameters, if `attnquiz optimize` stored some.
        scheduling = scheduling_for(store)
        session_id = store.start_session(drills.name, "drill", now)
        for number, drill in enumerate(chosen, start=1):
            run = DrillRun(drill, frame.checker)
            started = clock()
            try:
                terminal.run(run, number, len(chosen))
            except EndOfSession:
                terminal.say("session ended: every finished drill is saved")
                break
            finished = clock()
            grade = run.grade()
            record = ReviewRecord(
                set_name=drills.name,
                item_id=drill.card_id,
                grade=int(grade),
                answer=None,
                correct=grade.value > 1,
                duration_ms=int((finished - started).total_seconds() * 1000),
                reviewed_at=finished,
                session_id=session_id,
            )
            recorded = store.record(record, partial(_reschedule, scheduling, grade, finished))
            assert recorded.after.due is not None
            terminal.say(
                f"rated {grade.name.lower()} ({_steps_summary(run.results.values())}); "
                f"next review in {interval(recorded.after.due - finished)}"
            )
    finally:
        if session_id is not None:
            store.end_session(session_id, clock())
    return EXIT_OK


def _reschedule(scheduling: Scheduling, grade: Grade, now: datetime, card: CardState) -> CardState:
    return scheduling.review(card, grade, now)


def _named(drills: DrillSet, name: str) -> Drill:
    drill = drills.drill(name.removeprefix(CARD_PREFIX))
    if drill is None:
        known = ", ".join(d.id for d in drills.drills)
        raise UsageError(f"set {drills.name} has no drill {name!r} (drills: {known})")
    return drill


def _terminal(interactive: bool) -> DrillTerminal:
    from engine.drills.terminal import DrillTerminal

    if not interactive:
        return DrillTerminal()
    from engine.ui.console import make_console

    return DrillTerminal(make_console())


def _steps_summary(results: Iterable[StepResult]) -> str:
    counts = Counter(result.value for result in results)
    return ", ".join(f"{n} {what}" for what, n in counts.items())


def _run_timed(
    set_name: str, name: str | None, data_dir: Path | None, checker: Checker | None
) -> int:
    if name is not None:
        raise UsageError("--timed runs the set's timed drills; leave out the drill name")
    from engine.commands.clocked import run_timed

    return run_timed(set_name, data_dir, checker=checker)


def _run_rapid(
    set_name: str,
    name: str | None,
    data_dir: Path | None,
    seed: int | None,
    checker: Checker | None,
) -> int:
    if name is not None:
        raise UsageError("--rapid runs the set's rapid-fire shapes; leave out the drill name")
    from engine.commands.clocked import run_rapid

    return run_rapid(set_name, data_dir, seed=seed, checker=checker)
