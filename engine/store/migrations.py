"""Named schema migrations, applied in order and recorded in the `migrations` table."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(name: str) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((name, fn))
        return fn

    return register


@migration("0001_cards_reviews_sessions")
def _initial(db: sqlite3.Connection) -> None:
    # Times are integer milliseconds since the Unix epoch, UTC.
    _run_script(
        db,
        """
        CREATE TABLE cards (
            id INTEGER PRIMARY KEY,
            set_name TEXT NOT NULL,
            item_id TEXT NOT NULL,
            phase INTEGER NOT NULL,
            step INTEGER,
            stability REAL,
            difficulty REAL,
            due INTEGER NOT NULL,
            last_review INTEGER,
            reps INTEGER NOT NULL DEFAULT 0,
            fails INTEGER NOT NULL DEFAULT 0,
            introduced INTEGER NOT NULL,
            UNIQUE (set_name, item_id)
        );
        CREATE INDEX cards_by_due ON cards (set_name, due);
        CREATE INDEX cards_by_introduced ON cards (set_name, introduced);
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            set_name TEXT NOT NULL,
            mode TEXT NOT NULL,
            started INTEGER NOT NULL,
            ended INTEGER
        );
        CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            card_id INTEGER REFERENCES cards (id),
            session_id INTEGER REFERENCES sessions (id),
            set_name TEXT NOT NULL,
            item_id TEXT NOT NULL,
            reviewed_at INTEGER NOT NULL,
            rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
            answer TEXT,
            correct INTEGER,
            duration_ms INTEGER,
            phase_before INTEGER NOT NULL,
            cram INTEGER NOT NULL DEFAULT 0,
            card_before TEXT
        );
        CREATE INDEX reviews_by_card ON reviews (card_id, reviewed_at);
        CREATE INDEX reviews_for_retention ON reviews (set_name, cram, phase_before, rating);
        CREATE INDEX reviews_by_time ON reviews (set_name, reviewed_at);
        """,
    )


def _run_script(db: sqlite3.Connection, script: str) -> None:
    # Not executescript(): it commits first, which would break the migration's transaction.
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def apply_migrations(db: sqlite3.Connection, now_ms: int) -> list[str]:
    """Apply the migrations not yet recorded; each one in its own transaction."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied INTEGER NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM migrations")}
    known = {name for name, _ in MIGRATIONS}
    if done - known:
        from engine.errors import StoreError

        newer = ", ".join(sorted(done - known))
        raise StoreError(f"the store was written by a newer attnquiz (migrations {newer}); upgrade")
    applied = []
    for name, fn in MIGRATIONS:
        if name in done:
            continue
        with db:
            db.execute("BEGIN IMMEDIATE")
            # Another process may have applied it while we waited for the lock.
            if db.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                continue
            fn(db)
            db.execute("INSERT INTO migrations VALUES (?, ?)", (name, now_ms))
        applied.append(name)
    return applied


@migration("0002_timed_drills")
def _timed_drills(db: sqlite3.Connection) -> None:
    # One row per attempt at a timed drill, written when it starts and updated after every part,
    # so an interrupted attempt is kept. Durations in milliseconds.
    _run_script(
        db,
        """
        CREATE TABLE timed_runs (
            id INTEGER PRIMARY KEY,
            set_name TEXT NOT NULL,
            drill TEXT NOT NULL,
            started INTEGER NOT NULL,
            limit_ms INTEGER NOT NULL,
            total_ms INTEGER,
            all_right INTEGER NOT NULL DEFAULT 0,
            within_limit INTEGER NOT NULL DEFAULT 0,
            interrupted INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX timed_runs_by_drill ON timed_runs (set_name, drill, started);
        CREATE TABLE timed_parts (
            run_id INTEGER NOT NULL REFERENCES timed_runs (id),
            part TEXT NOT NULL,
            position INTEGER NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            duration_ms INTEGER,
            PRIMARY KEY (run_id, part)
        );
        CREATE INDEX timed_parts_by_part ON timed_parts (part, status, duration_ms);
        """,
    )


@migration("0003_fsrs_parameters")
def _fsrs_parameters(db: sqlite3.Connection) -> None:
    # The history of the FSRS parameters: one row per fit, and one per return to the defaults
    # (`source = 'default'`, no vector). The newest row is the one in use; nothing is deleted.
    # `parameters` is a JSON array of floats; the losses are the optimizer's log loss on the
    # reviews it was fitted to, with the parameters before and after.
    _run_script(
        db,
        """
        CREATE TABLE fsrs_parameters (
            id INTEGER PRIMARY KEY,
            chosen INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('fitted', 'default')),
            parameters TEXT,
            reviews_used INTEGER,
            cards_used INTEGER,
            loss_before REAL,
            loss_after REAL,
            fsrs_version TEXT
        )
        """,
    )


@migration("0004_lapses_suspension_confidence_settings")
def _lapses_suspension_confidence_settings(db: sqlite3.Connection) -> None:
    # Lapses (Again on a graduated card) apart from fails (Again in any phase), filled in from
    # the review log; suspended cards (leeches) stay out of the daily queue; the learner's
    # confidence in a typed answer (1 sure, 0 unsure, NULL not asked); and the settings a
    # learner chose (desired retention, daily new cards, ...), one JSON value per key.
    _run_script(
        db,
        """
        ALTER TABLE cards ADD COLUMN lapses INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE cards ADD COLUMN suspended INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE reviews ADD COLUMN confidence INTEGER;
        UPDATE cards SET lapses = (
            SELECT count(*) FROM reviews AS r WHERE r.card_id = cards.id AND r.cram = 0
            AND r.rating = 1 AND r.phase_before = 2
        );
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            changed INTEGER NOT NULL
        )
        """,
    )
