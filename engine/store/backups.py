"""Automatic copies of the store, made before a command can change it (as Anki keeps backups).

SQLite keeps committed answers safe from a killed process, but not from a damaged file or a
write-ahead log cut short (it silently drops the log's tail on the next open). So before a
store with answers newer than its last copy is opened for writing, a consistent copy is made
with SQLite's backup API into `<store folder>/backups/`, and the newest few are kept.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

KEEP = 5
FOLDER = "backups"


def backup_folder(path: Path) -> Path:
    return path.parent / FOLDER


def _copies(path: Path) -> list[Path]:
    folder = backup_folder(path)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{path.stem}-*{path.suffix}"))


def latest_backup(path: Path) -> Path | None:
    copies = _copies(path)
    return copies[-1] if copies else None


def _newest_change(db: sqlite3.Connection) -> int | None:
    try:
        row = db.execute("SELECT max(reviewed_at), count(*) FROM reviews").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None or not row[1] else int(row[0] or 0) + int(row[1])


def back_up_if_changed(db: sqlite3.Connection, path: Path) -> Path | None:
    """Copy the store when it holds answers its newest copy lacks; the copy made, or None.

    The copy's name carries a mark of what it holds (latest review time + number of reviews),
    so an unchanged store is not copied again. Failing to copy (a full disk, a read-only
    folder) never stops the learner: the store itself is untouched by it.
    """
    mark = _newest_change(db)
    if mark is None:
        return None
    newest = latest_backup(path)
    if newest is not None and newest.stem.endswith(f"-{mark}"):
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = backup_folder(path)
    target = folder / f"{path.stem}-{stamp}-{mark}{path.suffix}"
    partial = target.with_suffix(".partial")
    try:
        folder.mkdir(exist_ok=True)
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            db.backup(copy)
        os.replace(partial, target)
    except (OSError, sqlite3.Error):
        with contextlib.suppress(OSError):
            partial.unlink()
        return None
    for old in _copies(path)[:-KEEP]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target
