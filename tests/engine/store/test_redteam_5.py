"""Red team, fifth pass, on the store: what a failure says must read as one clear line."""

from __future__ import annotations

import os
import sqlite3

import pytest

from engine.store.integrity import describe_failure


@pytest.mark.parametrize(
    ("reported", "said"),
    [
        ("database or disk is full", "the disk holding the store is full;"),
        ("database is locked", "the store is locked by another attnquiz"),
        ("attempt to write a readonly database", "the store cannot be written:"),
    ],
)
def test_a_failure_of_an_unnamed_store_reads_as_a_sentence(reported: str, said: str) -> None:
    # A write failing in a session reaches the command line's last resort, which does not know
    # the store's path: it said "the disk holding the store the store is full".
    line = str(describe_failure(None, sqlite3.OperationalError(reported)))
    assert line.startswith(said), line
    assert "the store the store" not in line


@pytest.mark.parametrize("shape", ["folder", "pipe", "device"])
def test_a_shared_memory_file_that_is_no_file_is_named(tmp_path, shape: str) -> None:
    # With `attnquiz.sqlite3-shm` a folder the store was called read-only (make it writable),
    # with a pipe "disk I/O error": neither says what is wrong, nor what to move aside.
    from engine.errors import StoreError
    from engine.store import open_store

    open_store(tmp_path).close()
    shm = tmp_path / "attnquiz.sqlite3-shm"
    shm.unlink(missing_ok=True)
    if shape == "folder":
        shm.mkdir()
    elif shape == "pipe":
        os.mkfifo(shm)
    else:
        shm.symlink_to("/dev/zero")
    with pytest.raises(StoreError) as refused:
        open_store(tmp_path).close()
    assert f"{shm} is not a regular file" in str(refused.value)
