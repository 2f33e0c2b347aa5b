"""`attnquiz drill SET --timed`: load the set's timed drill, run it against the real clock, the
real checkers and the store, and show the results."""

from __future__ import annotations

from pathlib import Path

from engine.drills.timed.file import load_timed_drill, timed_drill_file
from engine.drills.timed.grading import BankChecker, question_text
from engine.drills.timed.records import TimedRecords
from engine.drills.timed.run import run_drill
from engine.errors import UsageError
from engine.exit_codes import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK


def run_timed(set_name: str, data_dir: Path | None) -> int:
    """`attnquiz drill SET --timed`: 0 all right within the limit, 1 otherwise, 130 on Ctrl-C."""
    import sys

    from engine.checking.worker.bounded import close_checker, start_checker
    from engine.clock import make_clock
    from engine.commands.context import load
    from engine.drills.timed import view as timed_view
    from engine.drills.timed.results import show_results
    from engine.store import open_store

    start_checker()
    clock = make_clock()
    folder, qset = load(set_name, data_dir)
    found = timed_drill_file(set_name, folder)
    if found is None:
        raise UsageError(f"set {set_name} has no timed drill (drills/{set_name}-timed.yaml)")
    drill = load_timed_drill(*found, qset)
    store = open_store(folder)
    records = TimedRecords(store.db)
    frontend = timed_view.make_frontend(drill, interactive=sys.stdin.isatty())
    try:
        frontend.begin(drill)
        run = run_drill(
            drill,
            frontend,
            BankChecker(qset),
            clock,
            prompt_of=question_text(qset),
            save=records.save,
        )
        show_results(frontend.console, drill, qset, run, records.compare(run))
    finally:
        store.close()
        close_checker()
    if run.interrupted:
        print("interrupted: this attempt is saved", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK if run.within_limit else EXIT_NEGATIVE
