"""Timed drill attempts in the store: saving each one as it goes, personal bests and the trend.

The tables `timed_runs` and `timed_parts` come from migration 0002_timed_drills. The rapid-fire
drill keeps its rounds there too, under its own drill name, one part per question.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engine.drills.clocked.run import DrillRun
from engine.interrupts import ctrl_c_held


@dataclass(frozen=True)
class Comparison:
    """This run against the earlier ones: best times before it, and the recent totals."""

    best_parts: dict[str, float]  # fastest right answer of each part in earlier runs
    best_total: float | None  # fastest earlier run with every part right within the limit
    trend: list[tuple[float, bool]]  # (total seconds, all right within the limit), oldest first


class TimedRecords:
    """The `timed_runs` and `timed_parts` tables (migration 0002_timed_drills)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def save(self, run: DrillRun) -> None:
        """Write the run as it stands, in one transaction; the first call gives it its id."""
        from engine.store.reviews import to_ms

        db = self.db
        # Ctrl-C acts after the commit: rolled back, the run would keep an id with no row.
        with ctrl_c_held(), db:
            db.execute("BEGIN IMMEDIATE")
            if run.run_id is None:
                cursor = db.execute(
                    "INSERT INTO timed_runs (set_name, drill, started, limit_ms) "
                    "VALUES (?, ?, ?, ?)",
                    (run.set_name, run.drill, to_ms(run.started), run.limit_seconds * 1000),
                )
                run.run_id = int(cursor.lastrowid or 0)
            db.execute(
                "UPDATE timed_runs SET total_ms = ?, all_right = ?, within_limit = ?, "
                "interrupted = ? WHERE id = ?",
                (
                    round(run.total_seconds * 1000),
                    int(run.all_right),
                    int(run.within_limit),
                    int(run.interrupted),
                    run.run_id,
                ),
            )
            for position, part in enumerate(run.parts):
                db.execute(
                    "INSERT OR REPLACE INTO timed_parts (run_id, part, position, status, "
                    "attempts, duration_ms) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        part.part_id,
                        position,
                        str(part.status),
                        part.attempts,
                        None if part.seconds is None else round(part.seconds * 1000),
                    ),
                )

    def compare(self, run: DrillRun, last: int = 12) -> Comparison:
        key = (run.set_name, run.drill, run.run_id or 0)
        rows = self.db.execute(
            "SELECT p.part, min(p.duration_ms) FROM timed_parts p JOIN timed_runs r "
            "ON r.id = p.run_id WHERE r.set_name = ? AND r.drill = ? AND r.id != ? "
            "AND p.status = 'right' GROUP BY p.part",
            key,
        )
        best_parts = {part: ms / 1000 for part, ms in rows if ms is not None}
        (best_total,) = self.db.execute(
            "SELECT min(total_ms) FROM timed_runs WHERE set_name = ? AND drill = ? AND id != ? "
            "AND within_limit = 1",
            key,
        ).fetchone()
        # A run in which no part was right (every one skipped, or the drill left at once) says
        # nothing about speed: its short total would read as a best in the trend.
        recent = self.db.execute(
            "SELECT total_ms, within_limit FROM timed_runs AS r WHERE set_name = ? AND drill = ? "
            "AND total_ms IS NOT NULL AND EXISTS (SELECT 1 FROM timed_parts AS p "
            "WHERE p.run_id = r.id AND p.status = 'right') "
            "ORDER BY started DESC, id DESC LIMIT ?",
            (run.set_name, run.drill, last),
        ).fetchall()
        return Comparison(
            best_parts,
            None if best_total is None else best_total / 1000,
            [(ms / 1000, bool(ok)) for ms, ok in reversed(recent)],
        )

    def best_score(self, run: DrillRun) -> int | None:
        """The most parts right in one earlier run of the same drill (None before the first
        run with any part right: a run of skips is no best)."""
        (best,) = self.db.execute(
            "SELECT max(score) FROM (SELECT sum(p.status = 'right') AS score FROM timed_runs r "
            "JOIN timed_parts p ON p.run_id = r.id WHERE r.set_name = ? AND r.drill = ? "
            "AND r.id != ? GROUP BY r.id HAVING score > 0)",
            (run.set_name, run.drill, run.run_id or 0),
        ).fetchone()
        return None if best is None else int(best)
