"""Checking a store before anything writes to it, and saying plainly what is wrong with it.

`open_store` calls `verify_before_writing` first: the write-ahead log must be whole (SQLite
silently drops a cut log's tail on the next open, committed answers included), the file must
pass SQLite's own check through a read-only connection, and every card row must hold values a
schedule can have. A store that fails is left exactly as it was: nothing has opened it for
writing yet. `describe_failure` turns SQLite's errors into what they mean for the learner: a
locked store, a read-only folder and a full disk are not damage.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import time
from pathlib import Path

from engine.errors import StoreError
from engine.store.backups import latest_backup

# Times are milliseconds since 1970; a due date past the year 9999 is no date at all.
MAX_TIME_MS = 253_402_300_799_999
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER, _FRAME_HEADER = 32, 24
_PHASES = (0, 1, 2, 3)
_IMPOSSIBLE_CARDS = f"""
    SELECT * FROM (SELECT set_name, item_id,
        CASE
            WHEN typeof(phase) != 'integer' OR phase NOT IN {_PHASES}
                THEN 'unknown phase ' || quote(phase)
            WHEN typeof(due) != 'integer' OR due NOT BETWEEN 0 AND {MAX_TIME_MS}
                THEN 'impossible due time ' || quote(due)
            WHEN last_review IS NOT NULL AND (typeof(last_review) != 'integer'
                OR last_review NOT BETWEEN 0 AND {MAX_TIME_MS})
                THEN 'impossible last review time ' || quote(last_review)
            WHEN stability IS NOT NULL AND (typeof(stability) NOT IN ('real', 'integer')
                OR NOT stability > 0 OR stability > 1e12)
                THEN 'impossible stability ' || quote(stability)
            WHEN difficulty IS NOT NULL AND (typeof(difficulty) NOT IN ('real', 'integer')
                OR NOT difficulty BETWEEN 0 AND 11)
                THEN 'impossible difficulty ' || quote(difficulty)
            WHEN step IS NOT NULL AND (typeof(step) != 'integer' OR step NOT BETWEEN 0 AND 1000)
                THEN 'impossible learning step ' || quote(step)
            WHEN typeof(reps) != 'integer' OR reps < 0
                THEN 'impossible count of reviews ' || quote(reps)
            WHEN typeof(fails) != 'integer' OR fails < 0
                THEN 'impossible count of lapses ' || quote(fails)
        END AS problem
    FROM cards) WHERE problem IS NOT NULL LIMIT 1
"""
_IMPOSSIBLE_REVIEWS = f"""
    SELECT set_name, item_id, 'impossible review time ' || quote(reviewed_at) FROM reviews
    WHERE typeof(reviewed_at) != 'integer' OR reviewed_at NOT BETWEEN 0 AND {MAX_TIME_MS}
    LIMIT 1
"""


def verify_before_writing(path: Path) -> None:
    """Raise StoreError unless the store at `path` (if there is one) is whole and sensible."""
    if not path.exists():
        return
    check_write_ahead_log(path)
    # Without a log, the file is the whole store: `immutable` reads it without creating the
    # -wal and -shm files a WAL reader would. With a log, a read-only reader uses it as it is.
    live = Path(f"{path}-wal").exists()
    options = "mode=ro" if live else "mode=ro&immutable=1"
    # A file URI names an absolute path; `--data-dir mine` is relative to the current folder.
    uri = path.absolute().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?{options}", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise describe_failure(path, exc) from exc
    try:
        db.execute("PRAGMA query_only = 1")
        try:
            verdict = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as exc:
            raise describe_failure(path, exc) from exc
        if verdict != ["ok"]:
            raise damaged(path, "; ".join(str(v) for v in verdict))
        if _has_table(db, "cards"):
            _check_rows(db, path, _IMPOSSIBLE_CARDS)
        if _has_table(db, "reviews"):
            _check_rows(db, path, _IMPOSSIBLE_REVIEWS)
    finally:
        db.close()


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None


def _check_rows(db: sqlite3.Connection, path: Path, query: str) -> None:
    try:
        row = db.execute(query).fetchone()
    except sqlite3.DatabaseError as exc:
        raise describe_failure(path, exc) from exc
    if row is not None:
        set_name, item_id, problem = row
        raise StoreError(
            f"the store {path} holds an impossible value for card {item_id!r} of set "
            f"{set_name!r} ({problem}); it was left untouched: {restore_advice(path)}"
        )


def check_write_ahead_log(path: Path) -> None:
    """Refuse a write-ahead log cut short: SQLite would drop its tail, answers included.

    A log is whole when it is empty, or a 32-byte header with a known magic number followed by
    whole frames (a 24-byte frame header and one page each). A log that is growing while we
    look (another process is writing a frame right now) is not judged.
    """
    wal = Path(f"{path}-wal")
    for _ in range(3):
        try:
            size = wal.stat().st_size
            with wal.open("rb") as log:
                header = log.read(_WAL_HEADER)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot read the store's log {wal}: {exc.strerror}") from exc
        if size == 0 or _log_is_whole(size, header):
            return
        time.sleep(0.05)
        if wal.exists() and wal.stat().st_size != size:
            continue  # it grew: a live writer, not a cut
        raise StoreError(
            f"the store's write-ahead log {wal} is cut short ({size} bytes), so the last "
            f"answers in it cannot be read back; nothing was changed. {restore_advice(path)}"
        )


def _log_is_whole(size: int, header: bytes) -> bool:
    if len(header) < _WAL_HEADER:
        return False
    magic, _, page_size = struct.unpack(">III", header[:12])
    if magic not in _WAL_MAGIC or page_size < 512 or page_size & (page_size - 1):
        return False
    return (size - _WAL_HEADER) % (_FRAME_HEADER + page_size) == 0


def restore_advice(path: Path) -> str:
    backup = latest_backup(path)
    if backup is None:
        return (
            f"move {path.name} (and its -wal and -shm files) aside to start afresh, or use "
            "--data-dir for another store"
        )
    return (
        f"to go back to the copy made before the last session, move {path.name} and its -wal "
        f"and -shm files aside, then copy {backup} to {path}"
    )


def damaged(path: Path, detail: object) -> StoreError:
    return StoreError(
        f"the store {path} is damaged ({detail}); it was left untouched: {restore_advice(path)}"
    )


def describe_failure(path: Path | None, exc: sqlite3.Error) -> StoreError:
    """The learner's words for what SQLite reported: locked, read-only, full, or damaged.

    `path` is None where the store's path is not known (the command line's last resort).
    """
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if path is None:
        return _described(Path("the store"), name, text, read_only=False)
    return _described(path, name, text, read_only=_read_only(path.parent, path))


def _described(path: Path, name: str, text: str, *, read_only: bool) -> StoreError:
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED") or "locked" in text:
        return StoreError(
            f"the store {path} is locked by another attnquiz (or another program) that is "
            "writing to it; finish or close that one, then try again"
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in text or read_only:
        return StoreError(
            f"the store {path} cannot be written: its folder or file is read-only; make it "
            "writable, or use --data-dir for a writable folder"
        )
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return StoreError(
            f"the disk holding the store {path} is full; every answer before this one is saved. "
            "Free some space, then go on"
        )
    if name.startswith("SQLITE_CANTOPEN") or name.startswith("SQLITE_IOERR"):
        return StoreError(f"cannot read or write the store {path}: {text}")
    if str(path) == "the store":
        return StoreError(f"the store is damaged ({text}); it was left untouched")
    return damaged(path, text)


def _read_only(folder: Path, path: Path) -> bool:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    target = path if path.exists() else folder
    return not os.access(target, os.W_OK)
