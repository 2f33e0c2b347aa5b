"""A whole set as an Anki deck: its notes, optionally their review state, written to a package."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.bank.model import QuestionSet
from engine.export.anki.notes import AnkiNote, note_for
from engine.export.anki.package import write_package
from engine.export.anki.schedule import AnkiReview, review_for, schedule_text
from engine.schedule import CardState


@dataclass(frozen=True)
class Exported:
    """What an export wrote, for the summary line and the tests."""

    path: Path
    notes: list[AnkiNote]
    scheduled: int | None  # cards that carry a review state; None without --with-schedule

    def by_kind(self) -> list[tuple[str, int]]:
        """Item kinds and their note counts, most first."""
        counts = Counter(note.kind for note in self.notes)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def summary(self) -> str:
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.by_kind())
        carried = "" if self.scheduled is None else f"; {self.scheduled} with their schedule"
        return f"wrote {len(self.notes)} notes to {self.path} ({kinds}){carried}"


def export_anki(
    qset: QuestionSet,
    path: Path,
    now: datetime,
    states: dict[str, CardState] | None = None,
) -> Exported:
    """Write `qset` to the package `path`; `states` (item id -> card) adds the review state.

    `now` is the notes' modification time as well: Anki updates its copy of a note only from a
    newer package, so a later export must have a later `now`.
    """
    notes = [note_for(item, qset.name) for item in qset.items]
    reviews: dict[str, AnkiReview] = {}
    if states is not None:
        for i, note in enumerate(notes):
            state = states.get(note.item_id)
            review = review_for(state, now) if state is not None else None
            if state is None or review is None:
                continue
            reviews[note.guid] = review
            notes[i] = note.with_field("Schedule", schedule_text(state, now))
    write_package(
        path,
        set_name=qset.name,
        title=qset.title,
        notes=notes,
        reviews=reviews,
        timestamp=now.timestamp(),
    )
    return Exported(path, notes, None if states is None else len(reviews))
