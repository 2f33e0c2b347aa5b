"""The store: migrations, one transaction per answer, undo, and refusing files that are not ours."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.paths import STORE_FILE
from engine.schedule import Grade, Phase, Scheduling
from engine.store import ReviewRecord, open_store
from engine.store.migrations import MIGRATIONS

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def review(item: str, grade: Grade = Grade.GOOD, at: datetime = NOW, **kw: object) -> ReviewRecord:
    return ReviewRecord(
        set_name="demo",
        item_id=item,
        grade=int(grade),
        answer="x",
        correct=grade > 1,
        duration_ms=1200,
        reviewed_at=at,
        **kw,  # type: ignore[arg-type]
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_new_store_records_every_migration_by_name(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    names = [r[0] for r in store.db.execute("SELECT name FROM migrations ORDER BY name")]
    assert names == sorted(name for name, _ in MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    # Opening again applies nothing twice.
    again = open_store(tmp_path)
    count = again.db.execute("SELECT count(*) FROM migrations").fetchone()[0]
    assert count == len(MIGRATIONS)


def test_a_review_is_logged_in_full_and_reschedules_the_card(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    rec = store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    assert rec.before.phase == Phase.NEW
    assert store.card("demo", "a").due == NOW + timedelta(minutes=10)
    row = store.db.execute(
        "SELECT item_id, rating, answer, correct, duration_ms, reviewed_at FROM reviews"
    ).fetchone()
    assert row == ("a", 3, "x", 1, 1200, int(NOW.timestamp() * 1000))


def test_undo_restores_the_card_as_it_was(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    before = store.card("demo", "a")
    later = NOW + timedelta(minutes=10)
    rec = store.record(review("a", Grade.AGAIN, later), lambda c: s.review(c, Grade.AGAIN, later))
    assert store.card("demo", "a") != before
    assert store.undo(rec.review_id) == "a"
    assert store.card("demo", "a") == before
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 1


def test_undoing_the_first_review_makes_the_card_new_again(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    rec = store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    store.undo(rec.review_id)
    assert store.card("demo", "a").phase == Phase.NEW
    assert store.introduced_since("demo", NOW - timedelta(days=1), ["a"]) == 0


def test_undo_refuses_to_erase_a_later_review_from_another_session(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    first = store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    assert store.undo(first.review_id) is None
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 2


def test_cram_reviews_are_logged_without_touching_the_schedule(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    store.record(review("a"), lambda c: s.review(c, Grade.GOOD, NOW))
    before = store.card("demo", "a")
    store.record(review("a", Grade.AGAIN, cram=True), None)
    store.record(review("new-one", Grade.AGAIN, cram=True), None)
    assert store.card("demo", "a") == before
    assert store.card("demo", "new-one").phase == Phase.NEW
    assert store.db.execute("SELECT count(*) FROM reviews WHERE cram = 1").fetchone()[0] == 2


def test_garbage_in_the_store_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    path.write_bytes(b"this is my shopping list, not a database\n" * 100)
    before = digest(path)
    with pytest.raises(StoreError, match="not an attnquiz store"):
        open_store(tmp_path)
    assert digest(path) == before


def test_another_programs_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE contacts (name TEXT)")
    other.execute("INSERT INTO contacts VALUES ('ada')")
    other.commit()
    other.close()
    before = digest(path)
    with pytest.raises(StoreError, match="another program"):
        open_store(tmp_path)
    assert digest(path) == before


def test_a_truncated_store_is_reported_as_damaged_and_left_untouched(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    s = Scheduling(fuzz=False)
    for n in range(200):
        store.record(review(f"i{n}"), lambda c: s.review(c, Grade.GOOD, NOW))
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    path = tmp_path / STORE_FILE
    data = path.read_bytes()
    path.write_bytes(data[:4096] + b"\xff" * (len(data) - 4096))
    before = digest(path)
    with pytest.raises((StoreError, sqlite3.DatabaseError)):
        damaged = open_store(tmp_path)
        damaged.cards("demo", [f"i{n}" for n in range(200)])
    assert digest(path) == before


def test_a_store_from_a_newer_attnquiz_is_refused(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.db.execute("INSERT INTO migrations VALUES ('9999_from_the_future', 0)")
    store.close()
    with pytest.raises(StoreError, match="newer attnquiz"):
        open_store(tmp_path)
