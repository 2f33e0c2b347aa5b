"""A damaged, impossible, cut, locked, read-only or full store: each is reported as what it is.

Damage is found by a read-only check before anything is written; impossible values name their
card; a write-ahead log cut short is refused (SQLite would silently drop its tail) and the
message says how to restore the automatic copy made before the last session.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.cli import main
from engine.commands.errors import run_guarded
from engine.errors import StoreError
from engine.paths import STORE_FILE
from engine.schedule import Grade, Scheduling
from engine.store import ReviewRecord, open_store
from engine.store.backups import backup_folder
from engine.store.integrity import describe_failure
from tests.conftest import run_cli

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ITEMS = ["recall-one", "choice-axis", "number-std", "shape-out", "expr-var"]


def review(item: str, at: datetime = NOW) -> ReviewRecord:
    return ReviewRecord("demo", item, int(Grade.GOOD), "x" * 50, True, 1000, at)


def fill(folder: Path, count: int = 5) -> Path:
    """A store with `count` answers on the fixture set's cards; returns its path."""
    store = open_store(folder)
    scheduling = Scheduling(fuzz=False)
    for n in range(count):
        at = NOW + timedelta(minutes=n)
        item = ITEMS[n % len(ITEMS)]
        store.record(review(item, at), lambda c, a=at: scheduling.review(c, Grade.GOOD, a))
    store.close()
    return folder / STORE_FILE


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def attnquiz(home: Path, *args: str, stdin: bytes = b"", fsize: int | None = None):
    def limit() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        assert fsize is not None
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main())", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**os.environ, "ATTNQUIZ_HOME": str(home)},
        preexec_fn=limit if fsize is not None else None,
    )


# -- damage ------------------------------------------------------------------------------------
@pytest.mark.slow  # real processes
def test_a_damaged_page_is_found_read_only_and_nothing_is_written(store_home: Path) -> None:
    path = fill(store_home, 40)
    with contextlib.closing(sqlite3.connect(path)) as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
        # The review log's pages only: the store opens, and the damage shows at the first answer.
        roots = [
            r[0]
            for r in db.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'reviews'")
        ]
    with open(path, "r+b") as db_file:
        for root in roots:
            db_file.seek((root - 1) * page)
            db_file.write(bytes([0x05, 0xFF, 0xFF]) + os.urandom(61))
    before = digest(path)
    listing = sorted(os.listdir(store_home))
    done = attnquiz(store_home, "quiz", "demo", stdin=b"3\n3\n")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert f"the store {path} is damaged" in err and "left untouched" in err
    assert digest(path) == before
    assert sorted(os.listdir(store_home)) == listing


# -- impossible values ---------------------------------------------------------------------------
IMPOSSIBLE = {
    "due": (2**63 - 1, "impossible due time 9223372036854775807"),
    "phase": (7, "unknown phase 7"),
    "stability": ("abc", "impossible stability 'abc'"),
    "difficulty": (-3.5, "impossible difficulty -3.5"),
    "last_review": (-1, "impossible last review time -1"),
    "fails": ("many", "impossible count of lapses 'many'"),
}


@pytest.mark.parametrize("column", sorted(IMPOSSIBLE))
@pytest.mark.parametrize("command", ["list", "stats", "quiz"])
def test_an_impossible_value_names_its_card(
    column: str, command: str, store_home: Path, capsys
) -> None:
    path = fill(store_home)
    value, words = IMPOSSIBLE[column]
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(f"UPDATE cards SET {column} = ? WHERE item_id = 'number-std'", (value,))
    before = digest(path)
    assert main([command, "demo"]) == 2
    err = capsys.readouterr().err
    assert f"impossible value for card 'number-std' of set 'demo' ({words})" in err
    assert digest(path) == before


def test_an_impossible_review_time_is_reported_too(store_home: Path, capsys) -> None:
    path = fill(store_home)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE reviews SET reviewed_at = 'soon' WHERE item_id = 'shape-out'")
    assert main(["stats", "demo"]) == 2
    assert "card 'shape-out' of set 'demo' (impossible review time 'soon')" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("how", ["--data-dir", "ATTNQUIZ_HOME"])
def test_a_store_in_a_relative_folder_opens_again_on_the_next_run(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # The second run finds the store that the first one made, and checks it read-only first.
    monkeypatch.chdir(tmp_path)
    fill(tmp_path / "mine", 2)
    if how == "ATTNQUIZ_HOME":
        monkeypatch.setenv("ATTNQUIZ_HOME", "mine")
        args = ["stats", "15", "--json"]
    else:
        args = ["stats", "15", "--json", "--data-dir", "mine"]
    for _ in range(2):
        assert main(args) == 0, capsys.readouterr().err


# Values found by filling each column of each table with a hostile value: each broke a command
# with an internal error before it was checked when the store is opened.
HOSTILE_ROWS = [
    ("cards", "lapses", "text", "card 'number-std' of set 'demo' (impossible count of lapses"),
    ("reviews", "rating", "{", "card 'number-std' of set 'demo' (impossible rating '{')"),
    ("fsrs_parameters", "chosen", -(2**62), "FSRS parameters of row 1 (impossible time chosen"),
    ("migrations", "name", None, "the migration NULL (impossible name NULL)"),
    ("settings", "changed", 2**62, "the setting 'new_per_day' (impossible time changed"),
]


@pytest.mark.parametrize(("table", "column", "value", "words"), HOSTILE_ROWS)
@pytest.mark.parametrize("command", [["stats", "demo", "--json"], ["optimize", "--json"]])
def test_an_impossible_value_in_any_table_is_reported_and_left_untouched(
    table: str, column: str, value: object, words: str, command: list[str], store_home: Path, capsys
) -> None:
    path = fill(store_home)
    assert main(["settings", "--new", "5"]) == 0
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "INSERT INTO fsrs_parameters (chosen, source, parameters) VALUES (?, 'default', NULL)",
            (int(NOW.timestamp() * 1000),),
        )
        db.execute("PRAGMA ignore_check_constraints = 1")
        which = "item_id = 'number-std'" if table in ("cards", "reviews") else "rowid = 1"
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {which}", (value,))
    capsys.readouterr()
    before = digest(path)
    assert main(command) == 2
    err = capsys.readouterr().err
    assert words in err and "left untouched" in err, err
    assert digest(path) == before


# A card's values must fit together as well as each be possible: a review card without a
# stability or difficulty, a relearning card without its step, or a count one more review would
# overflow ended a session in an internal error (fsrs's assertions, SQLite's integer range).
INCONSISTENT = [
    ("phase = 2, stability = NULL", "impossible stability NULL"),
    ("phase = 2, difficulty = NULL", "impossible difficulty NULL"),
    ("phase = 3, step = NULL", "impossible learning step NULL"),
    ("reps = 9223372036854775807", "impossible count of reviews 9223372036854775807"),
    ("lapses = 9223372036854775807", "impossible count of lapses 9223372036854775807"),
]


@pytest.mark.parametrize(("change", "words"), INCONSISTENT)
def test_values_that_do_not_fit_together_name_their_card(
    change: str, words: str, store_home: Path
) -> None:
    path = fill(store_home)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(f"UPDATE cards SET {change} WHERE item_id = 'number-std'")
    before = digest(path)
    done = run_cli("quiz", "demo", input="3\n" * 30)
    assert done.returncode == 2, done.stderr
    assert f"impossible value for card 'number-std' of set 'demo' ({words})" in done.stderr
    assert digest(path) == before


def test_the_largest_values_a_store_accepts_work_in_every_command(store_home: Path, capsys) -> None:
    # What the store check lets through must not break a command further on: a stability of
    # 10^12 days was an internal error in `stats` (too many days for a timedelta).
    path = fill(store_home)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "UPDATE cards SET phase = 2, stability = 1e12, reps = 1000000000, "
            "fails = 1000000000, lapses = 1000000000"
        )
    for command in (["stats", "demo"], ["list", "demo"], ["stats", "demo", "--json"]):
        assert main(command) == 0, capsys.readouterr().err
    with contextlib.closing(sqlite3.connect(path)) as db:
        reviews = db.execute("SELECT count(*) FROM reviews").fetchone()[0]
    done = run_cli("quiz", "demo", input="3\n" * 30)
    assert done.returncode == 0, done.stderr
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM reviews").fetchone()[0] > reviews


@pytest.mark.parametrize("which", ["", "-wal"])
def test_a_pipe_in_place_of_the_store_is_refused_without_blocking(
    which: str, store_home: Path, capsys
) -> None:
    # Opening a named pipe for reading waits for a writer that never comes: the command hung.
    path = fill(store_home, 1)
    target = Path(f"{path}{which}")
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    assert main(["stats", "demo"]) == 2
    err = capsys.readouterr().err
    assert f"{target} is not a regular file" in err, err


@pytest.mark.parametrize(
    "schema",
    [
        "CREATE TRIGGER forget AFTER INSERT ON reviews BEGIN DELETE FROM reviews; END",
        "CREATE TRIGGER later BEFORE UPDATE ON cards BEGIN SELECT 1; END",
        "CREATE VIEW due AS SELECT * FROM cards",
    ],
)
def test_a_trigger_or_view_attnquiz_never_makes_is_refused(schema: str, store_home: Path) -> None:
    # A trigger runs inside every write: one that deleted each new review let a session say
    # "rated good; next review in 10 min" while nothing was kept.
    path = fill(store_home)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(schema)
        reviews = db.execute("SELECT count(*) FROM reviews").fetchone()[0]
    before = digest(path)
    done = run_cli("quiz", "demo", input="3\n" * 10)
    assert done.returncode == 2, done.stderr
    name = schema.split()[2]
    assert f"{name!r}" in done.stderr and "attnquiz never makes" in done.stderr, done.stderr
    assert digest(path) == before
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM reviews").fetchone()[0] == reviews


# -- backups and a log cut short -----------------------------------------------------------------
def test_a_copy_is_made_before_a_store_with_new_answers_is_opened_again(tmp_path: Path) -> None:
    path = fill(tmp_path, 3)
    assert not backup_folder(path).exists() or not os.listdir(backup_folder(path))
    open_store(tmp_path).close()
    (copy,) = backup_folder(path).iterdir()
    with contextlib.closing(sqlite3.connect(copy)) as db:
        assert db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 3
    # Nothing new: no second copy. A new answer: a new copy at the next opening.
    open_store(tmp_path).close()
    assert len(os.listdir(backup_folder(path))) == 1
    fill(tmp_path, 1)
    open_store(tmp_path).close()
    assert len(os.listdir(backup_folder(path))) == 2


def _store_with_live_log(folder: Path) -> tuple[Path, Path]:
    """A store whose last answers are only in its write-ahead log, as after a crash."""
    path = fill(folder, 3)
    open_store(folder).close()  # the automatic copy of these three answers
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    for n in range(4):
        writer.execute(
            "INSERT INTO reviews (set_name, item_id, reviewed_at, rating, phase_before) "
            "VALUES ('demo', 'expr-var', ?, 3, 0)",
            (int(NOW.timestamp() * 1000) + n,),
        )
    crashed = folder.parent / (folder.name + "-crashed")
    crashed.mkdir()
    shutil.copy(path, crashed / STORE_FILE)
    shutil.copy(f"{path}-wal", crashed / f"{STORE_FILE}-wal")
    shutil.copytree(backup_folder(path), crashed / "backups")
    writer.close()
    return crashed / STORE_FILE, Path(f"{crashed / STORE_FILE}-wal")


def test_a_whole_log_is_read_back_with_every_answer(tmp_path: Path) -> None:
    path, _ = _store_with_live_log(tmp_path / "store")
    store = open_store(path.parent)
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 7
    store.close()


def test_a_log_cut_short_is_refused_with_how_to_restore(tmp_path: Path) -> None:
    path, wal = _store_with_live_log(tmp_path / "store")
    with open(wal, "r+b") as log:
        log.truncate(wal.stat().st_size - 1000)
    before = (digest(path), digest(wal))
    with pytest.raises(StoreError) as caught:
        open_store(path.parent)
    message = str(caught.value)
    assert f"write-ahead log {wal} is cut short" in message
    assert (digest(path), digest(wal)) == before
    # The advice keeps every answer whose save is whole in the log: the three in the store
    # and the first three of the four in the log (the cut is in the fourth's last frame).
    # Going back to the copy made before the session would keep only the first three.
    command = message.split("run `", 1)[1].split("`", 1)[0]
    subprocess.run(shlex.split(command), check=True, timeout=60, capture_output=True)
    store = open_store(path.parent)
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 6
    store.close()


def test_a_log_cut_inside_its_header_gets_the_restore_advice(tmp_path: Path) -> None:
    # SQLite reads nothing of a log without its header: the copy is all there is to go back to.
    path, wal = _store_with_live_log(tmp_path / "store")
    with open(wal, "r+b") as log:
        log.truncate(20)
    with pytest.raises(StoreError) as caught:
        open_store(path.parent)
    (copy,) = (path.parent / "backups").iterdir()
    assert f"then copy {copy} to {path}" in str(caught.value)
    assert "wal_checkpoint" not in str(caught.value)


def test_the_advice_for_a_cut_log_works_without_the_sqlite3_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, wal = _store_with_live_log(tmp_path / "store with 'quotes' and spaces")
    with open(wal, "r+b") as log:
        log.truncate(wal.stat().st_size - 1000)
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(StoreError) as caught:
        open_store(path.parent)
    command = str(caught.value).split("run `", 1)[1].split("`", 1)[0]
    assert not command.startswith("sqlite3")
    subprocess.run(shlex.split(command), check=True, timeout=60, capture_output=True)
    store = open_store(path.parent)
    assert store.db.execute("SELECT count(*) FROM reviews").fetchone()[0] == 6
    store.close()


# -- locked, read-only, full ---------------------------------------------------------------------
def test_a_locked_store_is_reported_as_locked(tmp_path: Path, capsys) -> None:
    path = fill(tmp_path, 1)
    store = open_store(tmp_path)
    store.db.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            store.record(review("expr-var"), None)
    finally:
        other.execute("ROLLBACK")
        other.close()
        store.close()
    assert "is locked by another attnquiz" in str(describe_failure(path, caught.value))

    def write_while_locked() -> None:
        raise caught.value

    assert run_guarded(write_while_locked) == 2
    err = capsys.readouterr().err
    assert "locked by another attnquiz" in err and "damaged" not in err


@contextlib.contextmanager
def read_only_folder() -> Iterator[Path]:
    """A folder holding a store that cannot be written: a read-only mount (root), else modes."""
    base = Path(tempfile.mkdtemp(prefix="attnquiz-ro-"))
    if os.geteuid() == 0:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(base)], check=True)
    try:
        fill(base, 2)
        if os.geteuid() == 0:
            subprocess.run(["mount", "-o", "remount,ro", str(base)], check=True)
        else:
            for entry in base.rglob("*"):
                entry.chmod(0o444 if entry.is_file() else 0o555)
            base.chmod(0o555)
        yield base
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(base)], check=True)
        else:
            base.chmod(0o755)
            for entry in base.rglob("*"):
                entry.chmod(0o755)
        shutil.rmtree(base)


def test_a_read_only_folder_is_reported_as_read_only(capsys) -> None:
    with read_only_folder() as folder:
        assert main(["quiz", "15", "--data-dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "cannot be written: its folder or file is read-only" in err
    assert "damaged" not in err


@pytest.mark.skipif(os.geteuid() != 0, reason="a small full filesystem is mounted as root")
@pytest.mark.slow  # a real process on a small mounted file system
def test_a_full_disk_is_reported_as_full_and_earlier_answers_are_kept(tmp_path: Path) -> None:
    home = tmp_path / "full"
    home.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(home)], check=True)
    try:
        shutil.copytree(Path(__file__).parents[2] / "fixtures" / "quizzes", home / "quizzes")
        path = fill(home, 2)
        open_store(home).close()
        # Fill the disk but for a few pages: the first answers fit, then the disk is full.
        free = os.statvfs(home).f_bavail * os.statvfs(home).f_frsize
        (home / "filler").write_bytes(b"\0" * (free - 80 * 1024))
        done = attnquiz(home, "quiz", "demo", stdin=b"3\n1\n8\n(T_q, d_v)\nd_k\n" * 4)
        err = done.stderr.decode()
        with contextlib.closing(sqlite3.connect(path)) as db:
            kept = db.execute("SELECT count(*) FROM reviews").fetchone()[0]
    finally:
        subprocess.run(["umount", str(home)], check=True)
    assert done.returncode == 2, err
    assert "is full; every answer before this one is saved" in err
    assert "damaged" not in err
    assert kept >= 2
