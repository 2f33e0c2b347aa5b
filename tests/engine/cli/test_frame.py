"""The one skeleton every grading command runs in (`engine.commands.frame.run_in_frame`): what it
opens is closed however the command ends, Ctrl-C anywhere says what was kept and exits 130, and
the body's own exit codes and domain errors pass through."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

import engine.commands.lint
from engine.commands import frame as frame_module
from engine.commands.frame import Frame, run_in_frame
from engine.errors import UsageError
from engine.exit_codes import EXIT_INTERRUPTED, EXIT_NEGATIVE


class CountingChecker:
    """A checker that only counts its starts and stops."""

    def __init__(self) -> None:
        self.started = 0
        self.closed = 0

    def start(self) -> None:
        self.started += 1

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def own_checker(monkeypatch: pytest.MonkeyPatch) -> CountingChecker:
    """The checker a command run without one creates for itself."""
    checker = CountingChecker()
    monkeypatch.setattr(frame_module, "new_checker", lambda: checker)
    return checker


def _opens_store_then(what: BaseException | int, opened: list[Frame]) -> Any:
    def body(frame: Frame) -> int:
        frame.store()
        opened.append(frame)
        if isinstance(what, BaseException):
            raise what
        return what

    return body


def _is_closed(frame: Frame) -> bool:
    return frame._store is None


def test_ctrl_c_in_the_body_closes_everything_says_what_was_kept_and_exits_130(
    own_checker: CountingChecker, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[Frame] = []
    body = _opens_store_then(KeyboardInterrupt(), opened)
    assert run_in_frame(body, None, None, kept="every answer is saved") == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "interrupted: every answer is saved\n"
    assert _is_closed(opened[0])
    assert (own_checker.started, own_checker.closed) == (1, 1)


def test_a_body_that_handled_ctrl_c_itself_says_what_it_kept(
    own_checker: CountingChecker, capsys: pytest.CaptureFixture[str]
) -> None:
    def body(frame: Frame) -> int:
        frame.kept = "every answer so far is saved (3 this session)"
        return EXIT_INTERRUPTED

    assert run_in_frame(body, None, None, kept="every answer so far is saved") == 130
    assert capsys.readouterr().err == "interrupted: every answer so far is saved (3 this session)\n"


def test_the_body_exit_code_and_errors_pass_through_and_the_frame_is_closed(
    own_checker: CountingChecker, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[Frame] = []
    assert run_in_frame(_opens_store_then(EXIT_NEGATIVE, opened), None, None, kept="-") == 1
    with pytest.raises(UsageError):
        run_in_frame(_opens_store_then(UsageError("no such set"), opened), None, None, kept="-")
    assert all(_is_closed(frame) for frame in opened) and len(opened) == 2
    assert (own_checker.started, own_checker.closed) == (2, 2)
    assert capsys.readouterr().err == ""


def test_a_given_checker_is_started_but_left_to_its_owner(
    own_checker: CountingChecker,
) -> None:
    given = CountingChecker()
    run_in_frame(_opens_store_then(KeyboardInterrupt(), []), None, given, kept="-")  # type: ignore[arg-type]
    assert (given.started, given.closed) == (1, 0)
    assert own_checker.started == 0


def test_the_store_is_left_consistent_after_ctrl_c(
    own_checker: CountingChecker, store_home
) -> None:
    opened: list[Frame] = []
    run_in_frame(_opens_store_then(KeyboardInterrupt(), opened), None, None, kept="-")
    # Closed, so another connection may open it and write at once.
    with sqlite3.connect(opened[0].folder / "attnquiz.sqlite3", timeout=0) as db:
        db.execute("BEGIN IMMEDIATE")


def _ctrl_c(*args: object, **kwargs: object) -> Any:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("args", "reading", "said"),
    [
        (
            ("check", "demo", "recall-one", "-a", "3"),
            "engine.bank.catalog.open_set",
            "nothing is stored",
        ),
        (
            ("check", "demo", "a-drill", "--step", "1", "-a", "x"),
            "engine.drills.loader.open_drill_set",
            "nothing is stored",
        ),
        (("quiz", "demo"), "engine.commands.quiz.open_set", "every answer so far is saved"),
        (
            ("drill", "demo"),
            "engine.commands.drill.open_drill_set",
            "every finished drill is saved",
        ),
        (("drill", "demo", "--timed"), "engine.bank.catalog.open_set", "this attempt is saved"),
        (
            ("drill", "demo", "--rapid"),
            "engine.drills.rapid.file.rapid_drill_file",
            "this round is saved",
        ),
    ],
)
def test_every_grading_command_ends_ctrl_c_the_same_way(
    run, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], reading: str, said: str
) -> None:
    """Ctrl-C while the command reads its set or drill: 130 and what was kept, from the frame."""
    monkeypatch.setattr(reading, _ctrl_c)
    result = run(*args)
    assert result.returncode == EXIT_INTERRUPTED
    assert result.stderr == f"interrupted: {said}\n"


def test_lint_ends_ctrl_c_in_the_frame_too(run, monkeypatch, store_home) -> None:
    monkeypatch.setattr(engine.commands.lint, "load_bank_file", _ctrl_c)
    result = run("lint", str(store_home / "quizzes" / "demo.yaml"))
    assert result.returncode == EXIT_INTERRUPTED
    assert result.stderr == "interrupted: no file is changed\n"
