"""Opening the store safely: refuse foreign or damaged files, never overwrite them."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from engine.errors import StoreError
from engine.paths import STORE_FILE
from engine.store.backups import back_up_if_changed
from engine.store.integrity import describe_failure, require_regular_file, verify_before_writing
from engine.store.migrations import apply_migrations
from engine.store.reviews import Store

# "AQz1" in ASCII: marks the SQLite file as ours, so another program's database is never touched.
APPLICATION_ID = 0x41517A31
SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 15_000


def open_store(folder: Path) -> Store:
    path = folder / STORE_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the store folder {folder}: {exc.strerror}") from exc
    _check_header(path)
    # Read-only first: a store that fails here is never opened for writing.
    verify_before_writing(path)
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as exc:
        raise describe_failure(path, exc) from exc
    try:
        _claim(db, path)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        # FULL: a committed answer survives power loss too, not only a killed process.
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        back_up_if_changed(db, path)
        apply_migrations(db, int(time.time() * 1000))
    except sqlite3.DatabaseError as exc:
        db.close()
        raise describe_failure(path, exc) from exc
    except StoreError:
        db.close()
        raise
    return Store(db, path)


def _check_header(path: Path) -> None:
    try:
        require_regular_file(path)
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot read the store {path}: {exc.strerror}") from exc
    if head and head != SQLITE_HEADER:
        raise StoreError(
            f"{path} is not an attnquiz store (not an SQLite database); it was left untouched: "
            "move it aside or use --data-dir"
        )


def _claim(db: sqlite3.Connection, path: Path) -> None:
    """Mark a new, empty database as ours; refuse a database that belongs to someone else."""
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    if app_id == APPLICATION_ID:
        return
    tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if app_id != 0 or tables:
        raise StoreError(
            f"{path} is an SQLite database of another program, not an attnquiz store; it was "
            "left untouched: use --data-dir for another folder"
        )
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
