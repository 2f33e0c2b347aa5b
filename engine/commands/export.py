"""`attnquiz export SET --anki FILE.apkg [--with-schedule]`: the set as an Anki deck.

One note per item; exporting again gives the same note GUIDs, note types and deck, so Anki
updates the notes it already has instead of adding copies.
"""

from __future__ import annotations

from pathlib import Path

from engine.clock import make_clock
from engine.commands.context import load
from engine.exit_codes import EXIT_OK
from engine.paths import expand_home


def run_export(set_name: str, anki: Path, with_schedule: bool, data_dir: Path | None) -> int:
    from engine.export.anki import check_target, export_anki

    now = make_clock()()
    target = check_target(expand_home(anki))  # before the slow part: a bad path fails at once
    folder, qset = load(set_name, data_dir)
    states = None
    if with_schedule:
        from engine.store import open_store

        store = open_store(folder)
        try:
            states = store.cards(qset.name, qset.ids)
        finally:
            store.close()
    exported = export_anki(qset, target, now, states)
    from engine.ui.console import make_console
    from engine.ui.literal import literal

    # rich wraps the line at the terminal's width (80 columns at most when piped); the file
    # name is the user's, its controls shown as escapes
    make_console().print(literal(exported.summary()))
    return EXIT_OK
