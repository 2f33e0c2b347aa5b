"""Checking a store before anything writes to it, and saying plainly what is wrong with it.

`open_store` calls `verify_before_writing` first: the write-ahead log must be whole (SQLite
silently drops a cut log's tail on the next open; the learner is told what was lost and how to
keep every save before the cut), the file must
pass SQLite's own check through a read-only connection, and every card row must hold values a
schedule can have. A store that fails is left exactly as it was: nothing has opened it for
writing yet. `describe_failure` turns SQLite's errors into what they mean for the learner: a
locked store, a read-only folder and a full disk are not damage.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sqlite3
import stat
import struct
import sys
import time
from pathlib import Path

from engine.errors import StoreError
from engine.store.backups import latest_backup

# Times are milliseconds since 1970; a due date past the year 9999 is no date at all.
MAX_TIME_MS = 253_402_300_799_999
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER, _FRAME_HEADER = 32, 24
# Counts (and durations in milliseconds) far below SQLite's 2^63, so adding to one never
# overflows: a billion reviews of one card, or a duration of 31 years, is already impossible.
MAX_COUNT = 10**12
_TIME = f"typeof({{c}}) = 'integer' AND {{c}} BETWEEN 0 AND {MAX_TIME_MS}"
_COUNT = f"typeof({{c}}) = 'integer' AND {{c}} BETWEEN 0 AND {MAX_COUNT}"
_FLAG = "typeof({c}) = 'integer' AND {c} IN (0, 1)"
_PHASE = "typeof({c}) = 'integer' AND {c} IN (0, 1, 2, 3)"
_TEXT = "typeof({c}) = 'text'"
_STEP = "typeof({c}) = 'integer' AND {c} BETWEEN 0 AND 1000"
# A rule for every column the program reads back, by table: (column, when it may be NULL, what
# a sensible value is, the words for a value that is not). "When it may be NULL" is True, False,
# or an SQL condition on the row: FSRS needs a stability and a difficulty once a card has left
# learning, and a step while it is in (re)learning. A value that breaks a rule is reported with
# the row's owner before anything is written: a damaged or hostile store is bad input.
_COLUMN_RULES: dict[str, tuple[str, list[tuple[str, bool | str, str, str]]]] = {
    "cards": (
        "'card ' || quote(item_id) || ' of set ' || quote(set_name)",
        [
            ("set_name", False, _TEXT, "impossible set name"),
            ("item_id", False, _TEXT, "impossible item id"),
            ("phase", False, _PHASE, "unknown phase"),
            ("due", False, _TIME, "impossible due time"),
            ("last_review", True, _TIME, "impossible last review time"),
            (
                "stability",
                "phase IN (0, 1)",
                "typeof({c}) IN ('real', 'integer') AND {c} > 0 AND {c} <= 1e12",
                "impossible stability",
            ),
            (
                "difficulty",
                "phase IN (0, 1)",
                "typeof({c}) IN ('real', 'integer') AND {c} BETWEEN 0 AND 11",
                "impossible difficulty",
            ),
            (
                "step",
                "phase IN (0, 2)",
                "typeof({c}) = 'integer' AND {c} BETWEEN 0 AND 1000",
                "impossible learning step",
            ),
            ("reps", False, _COUNT, "impossible count of reviews"),
            ("fails", False, _COUNT, "impossible count of lapses"),
            ("lapses", False, _COUNT, "impossible count of lapses"),
            ("suspended", False, _FLAG, "impossible suspension flag"),
            ("introduced", False, _TIME, "impossible time of introduction"),
        ],
    ),
    "reviews": (
        "'card ' || quote(item_id) || ' of set ' || quote(set_name)",
        [
            ("set_name", False, _TEXT, "impossible set name"),
            ("item_id", False, _TEXT, "impossible item id"),
            ("reviewed_at", False, _TIME, "impossible review time"),
            (
                "rating",
                False,
                "typeof({c}) = 'integer' AND {c} BETWEEN 1 AND 4",
                "impossible rating",
            ),
            ("answer", True, _TEXT, "impossible answer"),
            ("correct", True, _FLAG, "impossible verdict"),
            ("duration_ms", True, _COUNT, "impossible duration"),
            ("phase_before", False, _PHASE, "impossible phase before the review"),
            ("cram", False, _FLAG, "impossible cram flag"),
            ("card_before", True, "json_valid({c})", "impossible card before the review"),
            ("confidence", True, _FLAG, "impossible confidence"),
        ],
    ),
    "sessions": (
        "'session ' || quote(id) || ' of set ' || quote(set_name)",
        [
            ("set_name", False, _TEXT, "impossible set name"),
            ("mode", False, _TEXT, "impossible mode"),
            ("started", False, _TIME, "impossible start time"),
            ("ended", True, _TIME, "impossible end time"),
        ],
    ),
    "timed_runs": (
        "'the timed drill ' || quote(drill) || ' of set ' || quote(set_name)",
        [
            ("set_name", False, _TEXT, "impossible set name"),
            ("drill", False, _TEXT, "impossible drill id"),
            ("started", False, _TIME, "impossible start time"),
            ("limit_ms", False, _COUNT, "impossible time limit"),
            ("total_ms", True, _COUNT, "impossible total time"),
            ("all_right", False, _FLAG, "impossible all-right flag"),
            ("within_limit", False, _FLAG, "impossible within-limit flag"),
            ("interrupted", False, _FLAG, "impossible interruption flag"),
        ],
    ),
    "timed_parts": (
        "'part ' || quote(part) || ' of timed run ' || quote(run_id)",
        [
            ("part", False, _TEXT, "impossible part name"),
            ("position", False, _COUNT, "impossible position"),
            ("status", False, _TEXT, "impossible status"),
            ("attempts", False, _COUNT, "impossible count of attempts"),
            ("duration_ms", True, _COUNT, "impossible duration"),
        ],
    ),
    "fsrs_parameters": (
        "'the FSRS parameters of row ' || quote(id)",
        [("chosen", False, _TIME, "impossible time chosen")],
    ),
    "settings": (
        "'the setting ' || quote(key)",
        [("changed", False, _TIME, "impossible time changed")],
    ),
    "migrations": (
        "'the migration ' || quote(name)",
        [
            ("name", False, _TEXT, "impossible name"),
            ("applied", False, _TIME, "impossible time applied"),
        ],
    ),
}


def _impossible_rows_query(db: sqlite3.Connection, table: str) -> str | None:
    """One query for the first row of `table` with an impossible value: (owner, problem)."""
    owner, rules = _COLUMN_RULES[table]
    present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    cases = []
    for column, nullable, rule, words in rules:
        if column not in present:
            continue  # an older store, before the migration that adds it
        sensible = rule.format(c=column)
        if nullable is True:
            sensible = f"{column} IS NULL OR ({sensible})"
        elif nullable:
            sensible = f"({column} IS NULL AND ({nullable})) OR ({sensible})"
        cases.append(f"WHEN NOT ({sensible}) THEN '{words} ' || quote({column})")
    if not cases:
        return None
    return (
        f"SELECT owner, problem FROM (SELECT {owner} AS owner, CASE {' '.join(cases)} END "
        f"AS problem FROM {table}) WHERE problem IS NOT NULL LIMIT 1"
    )


def verify_before_writing(path: Path) -> None:
    """Raise StoreError unless the store at `path` (if there is one) is whole and sensible."""
    if not path.exists():
        return
    check_write_ahead_log(path)
    with contextlib.suppress(FileNotFoundError):  # SQLite makes it when it is missing
        # A folder, a pipe or a device in its place: SQLite says "read-only" or "disk I/O".
        require_regular_file(Path(f"{path}-shm"))
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
        _check_schema_objects(db, path)
        for table in _COLUMN_RULES:
            if _has_table(db, table):
                _check_rows(db, path, table)
    finally:
        db.close()


def _check_schema_objects(db: sqlite3.Connection, path: Path) -> None:
    """Refuse triggers and views: attnquiz makes neither, and a trigger runs inside every write
    (one could delete each answer as it is saved while the screen says it was kept)."""
    row = db.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1"
    ).fetchone()
    if row is not None:
        kind, name = row
        raise StoreError(
            f"the store {path} holds a {kind} attnquiz never makes ({name!r}), which could change "
            f"what is saved; it was left untouched: {restore_advice(path)}"
        )


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None


def _check_rows(db: sqlite3.Connection, path: Path, table: str) -> None:
    try:
        query = _impossible_rows_query(db, table)
        row = db.execute(query).fetchone() if query else None
    except sqlite3.DatabaseError as exc:
        raise describe_failure(path, exc) from exc
    if row is not None:
        owner, problem = row
        raise StoreError(
            f"the store {path} holds an impossible value for {owner} ({problem}); it was left "
            f"untouched: {restore_advice(path)}"
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
            require_regular_file(wal)
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
        if not _header_is_sound(header):  # SQLite reads none of it: nothing to recover
            raise StoreError(
                f"the store's write-ahead log {wal} has no sound header ({size} bytes), so the "
                f"answers in it cannot be read back; nothing was changed. {restore_advice(path)}"
            )
        raise StoreError(
            f"the store's write-ahead log {wal} is cut short ({size} bytes): what was cut off "
            "cannot be read back by anyone, but every save before the cut is whole; nothing was "
            f"changed. To keep those answers, copy {path.name} and {wal.name} aside as a safety "
            f"copy, then run `{_recovery_command(path)}` (SQLite reads the log up to the cut "
            "and writes what it holds into the store)"
        )


def _recovery_command(path: Path) -> str:
    """A shell command that has SQLite recover a cut log into the store: with the sqlite3
    program when there is one, else with this Python's own sqlite3 module."""
    checkpoint = "PRAGMA wal_checkpoint(TRUNCATE)"
    store = str(path.absolute())
    if shutil.which("sqlite3"):
        return f"sqlite3 {shlex.quote(store)} {shlex.quote(checkpoint)}"
    program = f"import sqlite3; sqlite3.connect({store!r}).execute({checkpoint!r})"
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(program)}"


def require_regular_file(path: Path) -> None:
    """StoreError unless `path` is a regular file (or missing: FileNotFoundError passes up).

    Opening a named pipe for reading waits for a writer that may never come, and a device
    never ends: neither is a store, so neither is opened.
    """
    if not stat.S_ISREG(path.stat().st_mode):
        raise StoreError(
            f"{path} is not a regular file, so it cannot be the store or one of its files; it "
            "was left untouched: move it aside or use --data-dir for another store"
        )


def _header_is_sound(header: bytes) -> bool:
    if len(header) < _WAL_HEADER:
        return False
    magic, _, page_size = struct.unpack(">III", header[:12])
    return magic in _WAL_MAGIC and page_size >= 512 and not page_size & (page_size - 1)


def _log_is_whole(size: int, header: bytes) -> bool:
    if not _header_is_sound(header):
        return False
    page_size = struct.unpack(">I", header[8:12])[0]
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
        return _described(None, name, text, read_only=False)
    return _described(path, name, text, read_only=_read_only(path.parent, path))


def _described(path: Path | None, name: str, text: str, *, read_only: bool) -> StoreError:
    store = "the store" if path is None else f"the store {path}"
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED") or "locked" in text:
        return StoreError(
            f"{store} is locked by another attnquiz (or another program) that is "
            "writing to it; finish or close that one, then try again"
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in text or read_only:
        return StoreError(
            f"{store} cannot be written: its folder or file is read-only; make it "
            "writable, or use --data-dir for a writable folder"
        )
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return StoreError(
            f"the disk holding {store} is full; every answer before this one is saved. "
            "Free some space, then go on"
        )
    if name.startswith("SQLITE_CANTOPEN") or name.startswith("SQLITE_IOERR"):
        return StoreError(f"cannot read or write {store}: {text}")
    if path is None:
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
