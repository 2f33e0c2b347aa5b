"""Red team, fifth pass, on the store: what a failure says must read as one clear line."""

from __future__ import annotations

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
