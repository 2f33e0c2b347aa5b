"""Writing the `.apkg` file: genanki fills the collection, the file appears whole or not at all.

genanki's `Package.write_to_file` builds its SQLite collection in the system's temporary folder,
never removes it, and zips straight into the target path, so a failure halfway would leave a
broken package. Instead genanki fills a collection in our own temporary folder
(`Package.write_to_db`), the review state is stamped into it when asked, and the zip (the
collection plus an empty media list, which is all an Anki package without media holds) is
written to a temporary file beside the target, synced, then renamed over it.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from engine.errors import UsageError
from engine.export.anki.html import escape
from engine.export.anki.models import deck_id, note_types
from engine.export.anki.notes import AnkiNote
from engine.export.anki.schedule import AnkiReview, stamp_reviews

SUFFIX = ".apkg"


def check_target(path: Path) -> Path:
    """The package path, or a UsageError saying why it cannot be written."""
    if path.suffix.lower() != SUFFIX:
        raise UsageError(f"--anki {path}: the file name must end in {SUFFIX} for Anki to import it")
    if path.is_dir():
        raise UsageError(
            f"--anki {path} is a folder; give a file name such as {path / 'deck.apkg'}"
        )
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise UsageError(f"cannot write {path}: {parent} is a file, not a folder")
    if not parent.is_dir():
        raise UsageError(
            f"cannot write {path}: the folder {parent} does not exist; create it first"
        )
    if not os.access(parent, os.W_OK):
        raise UsageError(f"cannot write {path}: the folder {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"cannot write {path}: the file is read-only")
    return path


def write_package(
    path: Path,
    *,
    set_name: str,
    title: str,
    notes: Sequence[AnkiNote],
    reviews: dict[str, AnkiReview],
    timestamp: float,
) -> None:
    """Write the notes as one deck to `path`, atomically.

    `timestamp` (seconds) is the notes' modification time: Anki updates a note it already has
    only from a package whose note is newer, so each export must be later than the last one.
    """
    import genanki

    target = check_target(path)
    types = note_types()
    deck = genanki.Deck(
        deck_id(set_name),
        "attnquiz::" + title.replace("::", ":"),
        description=f"<p>Exported from attnquiz, set {escape(set_name)}.</p>",
    )
    for position, note in enumerate(notes):
        deck.add_note(
            genanki.Note(
                model=types[note.note_type],
                fields=note.field_values(),
                tags=note.tags,
                guid=note.guid,
                due=position,  # new cards come in the bank's order
            )
        )
    with tempfile.TemporaryDirectory(prefix="attnquiz-anki-") as work:
        collection = Path(work) / "collection.anki2"
        db = sqlite3.connect(collection)
        try:
            ids = itertools.count(int(timestamp * 1000))
            genanki.Package(deck).write_to_db(db.cursor(), timestamp, ids)
            stamp_reviews(db, reviews)
            db.commit()
        finally:
            db.close()
        _zip_atomically(collection, target)


def _zip_atomically(collection: Path, target: Path) -> None:
    try:
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from exc
    try:
        os.chmod(partial, _file_mode(target))  # mkstemp makes it private (0600)
        with os.fdopen(fd, "wb") as raw:
            with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as package:
                package.write(collection, "collection.anki2")
                package.writestr("media", "{}")
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(partial, target)
    except BaseException as exc:
        Path(partial).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from exc
        raise


def _file_mode(target: Path) -> int:
    """The mode a new file gets under the process's umask, or the replaced file's mode."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
