"""`attnquiz exercises SET [ID]`: the coding exercises of a set, and their starter files.

Listing shows each exercise's state from the schedule (new, due, learning after a failed
attempt, passed until its next review); with an id it writes the starter file `ID.py` into
the current folder, never over an existing file. `find_exercise` serves `submit --exercise`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.bank.catalog import available_sets, bank_roots, open_set
from engine.cards.exercise import ExerciseItem
from engine.clock import make_clock
from engine.commands.context import load_with_store
from engine.errors import BankError, UsageError
from engine.exit_codes import EXIT_OK
from engine.paths import store_dir
from engine.schedule import CardState, Phase
from engine.ui.json_output import print_json


@dataclass(frozen=True)
class ExerciseRow:
    item: ExerciseItem
    state: str
    due: datetime | None

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.item.id,
            "title": self.item.title,
            "function": self.item.function,
            "signature": self.item.signature,
            "state": self.state,
            "due": self.due.isoformat() if self.due else None,
        }


def exercise_state(card: CardState | None, now: datetime) -> str:
    if card is None or card.phase == Phase.NEW:
        return "new"
    if card.due is not None and card.due <= now:
        return "due"
    return "passed" if card.phase == Phase.REVIEW else "learning"


def exercise_rows(set_name: str, data_dir: Path | None) -> list[ExerciseRow]:
    now = make_clock()()
    qset, store = load_with_store(set_name, data_dir)
    exercises = [item for item in qset.items if isinstance(item, ExerciseItem)]
    try:
        cards = store.cards(qset.name, [item.id for item in exercises])
    finally:
        store.close()
    return [
        ExerciseRow(item, exercise_state(cards.get(item.id), now), _due(cards.get(item.id)))
        for item in exercises
    ]


def _due(card: CardState | None) -> datetime | None:
    return card.due if card is not None else None


def run_list_exercises(set_name: str, data_dir: Path | None, as_json: bool) -> int:
    rows = exercise_rows(set_name, data_dir)
    if as_json:
        print_json([row.to_json() for row in rows])
        return EXIT_OK
    from rich.table import Table
    from rich.text import Text

    from engine.ui.console import make_console
    from engine.ui.describe import when

    now = make_clock()()
    table = Table(title=f"Coding exercises of set {set_name}", title_justify="left")
    for column in ("id", "function", "title", "state", "due"):
        table.add_column(column, no_wrap=column in {"id", "due"})
    for row in rows:
        table.add_row(
            Text(row.item.id),
            Text(row.item.signature),
            Text(row.item.title),
            row.state,
            when(row.due, now) if row.due else "-",
        )
    console = make_console()
    if not rows:
        console.print(Text(f"set {set_name} has no coding exercises"))
        return EXIT_OK
    console.print(table)
    console.print(
        Text(
            f"Start one with: attnquiz exercises {set_name} ID   "
            f"(then: attnquiz submit ID.py --exercise ID)"
        )
    )
    return EXIT_OK


def run_write_starter(
    set_name: str, exercise_id: str, data_dir: Path | None, folder: Path | None = None
) -> int:
    item = _exercise_of(set_name, exercise_id, data_dir)
    target = (folder or Path.cwd()) / f"{item.id}.py"
    try:
        # O_EXCL: never overwrite the learner's work, even if it appears between check and write.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise UsageError(
            f"{target.name} already exists: keep working on it, or move it away for a fresh starter"
        ) from None
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(item.starter)
    except OSError as error:
        # A file cut short (a full disk) would pass for the learner's work next time.
        target.unlink(missing_ok=True)
        raise UsageError(f"cannot write {target}: {error.strerror}") from None
    print(f"wrote {target.name}: write {item.signature}, then run")
    print(f"  attnquiz submit {target.name} --exercise {item.id}")
    return EXIT_OK


def run_show_hints(set_name: str, exercise_id: str, data_dir: Path | None) -> int:
    item = _exercise_of(set_name, exercise_id, data_dir)
    from rich.text import Text

    from engine.ui.console import make_console

    console = make_console()
    for number, hint in enumerate(item.hint_steps(), start=1):
        console.print(Text(f"hint {number}: {' '.join(hint.split())}"))
    return EXIT_OK


def _exercise_of(set_name: str, exercise_id: str, data_dir: Path | None) -> ExerciseItem:
    qset = open_set(set_name, store_dir(data_dir))
    item = qset.item(exercise_id)
    if not isinstance(item, ExerciseItem):
        known = ", ".join(i.id for i in qset.items if isinstance(i, ExerciseItem)) or "none"
        raise UsageError(f"set {set_name} has no exercise {exercise_id!r} (exercises: {known})")
    return item


def find_exercise(exercise_id: str, data_dir: Path | None) -> tuple[str, ExerciseItem]:
    """The set and the exercise with this id, from any set (in the order sets are listed)."""
    folder = store_dir(data_dir)
    known: list[str] = []
    unreadable: list[str] = []
    for name in available_sets(bank_roots(folder)):
        try:
            qset = open_set(name, folder)
        except BankError:
            unreadable.append(name)  # a broken set of the learner's must not hide the others
            continue
        for item in qset.items:
            if isinstance(item, ExerciseItem):
                if item.id == exercise_id:
                    return qset.name, item
                known.append(item.id)
    skipped = f"; sets that could not be read: {', '.join(unreadable)}" if unreadable else ""
    raise UsageError(
        f"no exercise {exercise_id!r} (exercises: {', '.join(known) or 'none'}{skipped}); "
        "see attnquiz exercises SET"
    )
