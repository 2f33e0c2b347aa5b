"""`attnquiz drill SET --timed` and `attnquiz drill SET --rapid`: a clocked drill against the
real clock, the real checkers and the store, then the results.

Both run in the grading commands' frame (`engine.commands.frame`), save every answer as it is
given (`engine.drills.clocked.records`) and end the same way: 0 when every part is right within
the limit, 1 otherwise, 130 on Ctrl-C (after saying that the run is kept).
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from engine.commands.frame import Frame, run_in_frame
from engine.drills.clocked.run import DrillRun
from engine.errors import UsageError
from engine.exit_codes import EXIT_INTERRUPTED, verdict_code

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker

MAX_SEED = 999_999


def run_timed(set_name: str, data_dir: Path | None, *, checker: Checker | None = None) -> int:
    """The set's timed drill: its five parts, each until it is right, within the limit."""
    from engine.bank.catalog import open_set
    from engine.drills.clocked.records import TimedRecords
    from engine.drills.timed import view
    from engine.drills.timed.file import load_timed_drill, timed_drill_file
    from engine.drills.timed.grading import BankChecker, question_text
    from engine.drills.timed.results import show_results
    from engine.drills.timed.run import run_drill

    def timed(frame: Frame) -> int:
        qset = open_set(set_name, frame.folder)
        found = timed_drill_file(set_name, frame.folder)
        if found is None:
            raise UsageError(f"set {set_name} has no timed drill (drills/{set_name}-timed.yaml)")
        drill = load_timed_drill(*found, qset)
        records = TimedRecords(frame.store().db)
        frontend = view.make_frontend(drill, interactive=frame.interactive)
        frontend.begin(drill)
        run = run_drill(
            drill,
            frontend,
            BankChecker(qset, frame.checker),
            frame.clock,
            prompt_of=question_text(qset),
            save=records.save,
        )
        show_results(frontend.console, drill, qset, run, records.compare(run))
        return _ending(run)

    return run_in_frame(timed, data_dir, checker, kept="this attempt is saved")


def run_rapid(
    set_name: str,
    data_dir: Path | None,
    *,
    seed: int | None = None,
    count: int | None = None,
    checker: Checker | None = None,
) -> int:
    """A round of rapid-fire shapes drawn from the set's templates (`seed` replays one)."""
    from engine.drills.clocked.records import TimedRecords
    from engine.drills.rapid import view
    from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
    from engine.drills.rapid.rounds import draw_questions, run_round, shape_grader

    def rapid(frame: Frame) -> int:
        found = rapid_drill_file(set_name, frame.folder)
        if found is None:
            raise UsageError(
                f"set {set_name} has no rapid-fire drill (drills/{set_name}-rapid.yaml); "
                "try `attnquiz drill 15 --rapid`"
            )
        drill = load_rapid_drill(*found, set_name)
        drawn = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
        questions = draw_questions(drill, count or drill.section.questions, random.Random(drawn))
        records = TimedRecords(frame.store().db)
        frontend = view.make_frontend(interactive=frame.interactive)
        frontend.begin(drill, len(questions))
        grader = shape_grader(frame.checker)
        run = run_round(drill, questions, frontend, grader, frame.clock, save=records.save)
        earlier = view.RapidBests(records.best_score(run), records.compare(run).best_total)
        view.show_results(frontend.console, run, questions, earlier)
        frontend.console.print(
            f"this round again: attnquiz drill {set_name} --rapid --seed {drawn}",
            style="dim",
            markup=False,
        )
        return _ending(run)

    return run_in_frame(rapid, data_dir, checker, kept="this round is saved")


def _ending(run: DrillRun) -> int:
    return EXIT_INTERRUPTED if run.interrupted else verdict_code(run.within_limit)
