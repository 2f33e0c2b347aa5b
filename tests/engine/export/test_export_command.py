"""`attnquiz export` as a user runs it: the summary, the file, and one-line errors."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from engine.export.anki import package as anki_package
from tests.conftest import CliResult, run_cli


def attnquiz(home: Path, *args: str) -> CliResult:
    return run_cli(*args, env={"ATTNQUIZ_HOME": str(home)})


def test_export_writes_the_package_and_says_what_is_in_it(store_home, tmp_path) -> None:
    target = tmp_path / "demo.apkg"
    result = attnquiz(store_home, "export", "demo", "--anki", str(target))
    assert result.returncode == 0, result.stderr
    summary = " ".join(result.stdout.split())  # one line, wrapped at the terminal's width
    assert summary.startswith(f"wrote 7 notes to {target} (")
    assert "2 shape" in summary and "1 recall" in summary and "1 choice" in summary
    with zipfile.ZipFile(target) as package:
        assert set(package.namelist()) == {"collection.anki2", "media"}
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing-folder/deck.apkg", "does not exist"),
        ("deck.txt", "must end in .apkg"),
        ("a-file/deck.apkg", "is a file, not a folder"),
    ],
)
def test_a_path_that_cannot_be_written_is_one_line_and_exit_2(
    store_home, tmp_path, where, message
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    result = attnquiz(store_home, "export", "demo", "--anki", str(tmp_path / where))
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnquiz: error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert not (tmp_path / where).exists()


def test_an_unknown_set_is_a_usage_error(store_home, tmp_path) -> None:
    result = attnquiz(store_home, "export", "nosuchset", "--anki", str(tmp_path / "x.apkg"))
    assert result.returncode == 2
    assert "no question set 'nosuchset'" in result.stderr
    assert not (tmp_path / "x.apkg").exists()


def test_a_failed_export_leaves_the_old_package_and_no_partial_file(
    tmp_path, monkeypatch, capsys
) -> None:
    from engine.cli import main

    target = tmp_path / "deck.apkg"
    assert main(["export", "demo", "--anki", str(target)]) == 0
    before = target.read_bytes()

    def broken(*args: object) -> int:
        raise OSError(28, "No space left on device")

    # Fail after genanki has filled the collection, while the package is being zipped.
    monkeypatch.setattr(anki_package.zipfile.ZipFile, "write", broken)
    assert main(["export", "demo", "--anki", str(target)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.apkg"]


def test_a_new_package_gets_the_mode_of_any_new_file(tmp_path) -> None:
    from engine.cli import main

    target = tmp_path / "deck.apkg"
    assert main(["export", "demo", "--anki", str(target)]) == 0
    umask = os.umask(0o022)
    os.umask(umask)
    # Not the private 0600 of a temporary file: what the user's umask gives any new file.
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
