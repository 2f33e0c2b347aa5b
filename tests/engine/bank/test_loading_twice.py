"""A bank file loaded twice in one process: the second load is the file as it is now, even when
its name, size and time stamp are the ones of the first, and what a caller does with its copy
leaves the next load alone."""

from __future__ import annotations

import os
from pathlib import Path

from engine.bank.loader import load_bank_file
from tests.conftest import FIXTURES


def test_a_file_rewritten_with_the_same_size_and_time_stamp_is_read_anew(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    text = (FIXTURES / "quizzes" / "demo.yaml").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    first = load_bank_file(path)
    assert not first.problems
    assert first.header is not None and first.header.title == "A tiny course for the tests"

    path.write_text(text.replace("A tiny course", "A small course"), encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))
    second = load_bank_file(path)
    assert second.header is not None and second.header.title == "A small course for the tests"

    path.write_text(text.replace("set: demo", "set: 'demo"), encoding="utf-8")
    assert load_bank_file(path).problems  # a broken file is reported, not the good one's result


def test_each_load_gets_its_own_lists(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_bytes((FIXTURES / "quizzes" / "demo.yaml").read_bytes())
    first = load_bank_file(path)
    count = len(first.items)
    first.items.clear()
    first.problems.append("a caller's own note")
    again = load_bank_file(path)
    assert len(again.items) == count > 0
    assert again.problems == []
    assert load_bank_file(path, "shown-as.yaml").path == "shown-as.yaml"  # its own problems' name
