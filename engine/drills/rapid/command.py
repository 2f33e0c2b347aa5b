"""`attnquiz drill SET --rapid`: draw a round from the set's templates, run it against the real
clock with the shape checker, keep it in the store, and show the score and the bests."""

from __future__ import annotations

import random
import secrets
import sys
from pathlib import Path

from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
from engine.drills.rapid.rounds import draw_questions, run_round, shape_grader
from engine.drills.timed.records import TimedRecords
from engine.errors import UsageError
from engine.exit_codes import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK

MAX_SEED = 999_999


def run_rapid(
    set_name: str, data_dir: Path | None, *, seed: int | None = None, count: int | None = None
) -> int:
    """A round; 0 when every question is right within the limit, 1 otherwise, 130 on Ctrl-C."""
    from engine.checking.worker.bounded import close_checker, start_checker
    from engine.clock import make_clock
    from engine.drills.rapid import view as rapid_view
    from engine.paths import store_dir
    from engine.store import open_store

    folder = store_dir(data_dir)
    found = rapid_drill_file(set_name, folder)
    if found is None:
        raise UsageError(
            f"set {set_name} has no rapid-fire drill (drills/{set_name}-rapid.yaml); "
            "try `attnquiz drill 15 --rapid`"
        )
    drill = load_rapid_drill(*found, set_name)
    start_checker()  # its start-up overlaps the first question
    seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
    questions = draw_questions(drill, count or drill.section.questions, random.Random(seed))
    clock = make_clock()
    store = open_store(folder)
    records = TimedRecords(store.db)
    frontend = rapid_view.make_frontend(interactive=sys.stdin.isatty())
    try:
        frontend.begin(drill, len(questions))
        run = run_round(drill, questions, frontend, shape_grader(), clock, save=records.save)
        earlier = rapid_view.RapidBests(records.best_score(run), records.compare(run).best_total)
        rapid_view.show_results(frontend.console, run, questions, earlier)
        frontend.console.print(
            f"this round again: attnquiz drill {set_name} --rapid --seed {seed}",
            style="dim",
            markup=False,
        )
    finally:
        store.close()
        close_checker()
    if run.interrupted:
        print("interrupted: this round is saved", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK if run.within_limit else EXIT_NEGATIVE
