"""The timed drill's code question in `$VISUAL`/`$EDITOR`: the learner's editor runs on a `.py`
file with the template, and what they saved is the answer, without the template's comments."""

from __future__ import annotations

from pathlib import Path

from engine.drills.timed.view import EDITOR_TEMPLATE, _edit

CODE = "def attention(Q, K, V):\n    return Q\n"


def _editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


def test_the_saved_code_is_the_answer_without_the_template(tmp_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    editor = _editor(tmp_path, f'cp "$1" {seen}; printf \'{CODE}\' >> "$1"')
    assert _edit(editor) == CODE.rstrip("\n")
    assert seen.read_text(encoding="utf-8") == EDITOR_TEMPLATE  # the editor got the template


def test_an_editor_given_with_arguments_runs_with_them(tmp_path: Path) -> None:
    editor = _editor(tmp_path, f'[ "$1" = "--wait" ] && printf \'{CODE}\' >> "$2"')
    assert _edit(f"{editor} --wait") == CODE.rstrip("\n")


def test_nothing_written_is_no_answer(tmp_path: Path) -> None:
    assert _edit(_editor(tmp_path, "true")) == ""


def test_an_editor_that_cannot_start_is_one_clear_error_not_an_internal_one() -> None:
    # click raised its own ClickException ("Editing failed"), which no edge expected: the
    # drill ended in an internal error. The front end types the code instead (see view.ask).
    import pytest

    from engine.errors import UsageError

    with pytest.raises(UsageError, match=r"/nowhere/editor.*set \$VISUAL or \$EDITOR"):
        _edit("/nowhere/editor")


def test_an_exercise_editor_that_cannot_start_is_one_clear_error(
    tmp_path: Path, monkeypatch
) -> None:
    import pytest

    from engine.errors import UsageError
    from engine.exercise_attempts import edit

    mine = tmp_path / "attention.py"
    mine.write_text(CODE, encoding="utf-8")
    monkeypatch.setenv("VISUAL", "/nowhere/editor --wait")
    with pytest.raises(UsageError, match=r"/nowhere/editor"):
        edit(mine)
    assert mine.read_text(encoding="utf-8") == CODE


def test_an_editor_setting_with_an_open_quote_is_one_clear_error(
    tmp_path: Path, monkeypatch
) -> None:
    # click splits $VISUAL/$EDITOR as a shell would: `code "` raised ValueError (No closing
    # quotation), which reached the command line as an internal error (exit 70). Red team 5.
    import pytest

    from engine.errors import UsageError
    from engine.exercise_attempts import edit

    with pytest.raises(UsageError, match=r"No closing quotation.*set \$VISUAL or \$EDITOR"):
        _edit('code "--wait')
    mine = tmp_path / "attention.py"
    mine.write_text(CODE, encoding="utf-8")
    monkeypatch.setenv("VISUAL", "vi 'unclosed")
    with pytest.raises(UsageError, match="vi 'unclosed"):
        edit(mine)
    assert mine.read_text(encoding="utf-8") == CODE
