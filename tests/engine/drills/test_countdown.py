"""The time limit while the learner types, driven through prompt_toolkit's own test input: keys
the test sends, an output that answers like a terminal, the time left in the toolbar, and the
prompt ended by `TimeUp` when the deadline passes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from rich.console import Console

from engine.drills.clocked.countdown import TerminalCountdown, status_level, status_text
from engine.drills.clocked.run import TimeUp

if TYPE_CHECKING:
    from prompt_toolkit.input import PipeInput

CURSOR_AT_TOP = "\x1b[1;1R"  # a terminal's answer to the cursor position request


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TerminalScreen(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def keyboard() -> Iterator[tuple[PipeInput, TerminalScreen]]:
    # Imported here, as the product imports it only when a live prompt is needed: a test process
    # that never runs these tests does not load it as it collects them.
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    screen = TerminalScreen()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm", enable_cpr=True)
    with create_pipe_input() as keys, create_app_session(input=keys, output=output):
        yield keys, screen


def live_countdown(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> TerminalCountdown:
    monkeypatch.setattr(TerminalCountdown, "live", property(lambda self: True))
    return TerminalCountdown(Console(file=io.StringIO(), no_color=True), clock)


@pytest.mark.parametrize(("left", "level"), [(61.0, "ok"), (59.2, "low"), (19.0, "out")])
def test_the_status_turns_yellow_then_red_as_time_runs_out(left: float, level: str) -> None:
    assert status_level(left) == level


def test_the_status_rounds_up_so_that_zero_shows_only_when_time_is_up() -> None:
    assert status_text(59.2, "part 2/5") == "⏱ 1:00 left · part 2/5"
    assert status_text(0.0, "") == "⏱ 0:00 left"


def test_an_answer_before_the_deadline_is_read_with_the_time_left_shown(
    keyboard: tuple[PipeInput, TerminalScreen], monkeypatch: pytest.MonkeyPatch
) -> None:
    keys, screen = keyboard
    clock = Clock()
    countdown = live_countdown(monkeypatch, clock)
    keys.send_text(CURSOR_AT_TOP + "(2, [3]) x\r")
    with countdown.waiting(60.0, "part 1/5") as read:
        assert read("›") == "(2, [3]) x"  # literal: no markup read into it
    assert "› " in screen.getvalue()
    # The toolbar the prompt redraws (the answer came before its first refresh), 30 s later:
    clock.now += 30.0
    toolbar = countdown.session().bottom_toolbar
    assert callable(toolbar)
    assert list(toolbar()) == [("class:countdown.low", "⏱ 0:30 left · part 1/5")]


def test_the_deadline_ends_a_waiting_prompt_with_time_up(
    keyboard: tuple[PipeInput, TerminalScreen], monkeypatch: pytest.MonkeyPatch
) -> None:
    keys, _ = keyboard
    countdown = live_countdown(monkeypatch, Clock())
    keys.send_text(CURSOR_AT_TOP + "(2, 3")  # typed, never entered
    # The test's clock stands still, so the prompt waits out the 0.1 s on the loop's clock.
    with pytest.raises(TimeUp), countdown.waiting(0.1, "question 3/12") as read:
        read("›")


def test_a_deadline_already_past_asks_nothing(
    keyboard: tuple[PipeInput, TerminalScreen], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, screen = keyboard
    clock = Clock()
    countdown = live_countdown(monkeypatch, clock)
    with countdown.waiting(10.0) as read:
        clock.now += 10.0
        with pytest.raises(TimeUp):
            read("›")
    assert screen.getvalue() == ""


def test_ctrl_c_and_ctrl_d_end_the_prompt_as_they_end_input(
    keyboard: tuple[PipeInput, TerminalScreen], monkeypatch: pytest.MonkeyPatch
) -> None:
    keys, _ = keyboard
    countdown = live_countdown(monkeypatch, Clock())
    with countdown.waiting(60.0) as read:
        keys.send_text(CURSOR_AT_TOP + "\x03")
        with pytest.raises(KeyboardInterrupt):
            read("›")
        keys.send_text(CURSOR_AT_TOP + "\x04")  # answered, or the prompt waits 1 s for it
        with pytest.raises(EOFError):
            read("…")


def test_output_that_is_not_a_terminal_reads_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True)
    monkeypatch.setattr("sys.stdin", io.StringIO("[bold]x[/bold]\n"))
    countdown = TerminalCountdown(console, Clock())
    assert not countdown.live
    with countdown.waiting(0.0, "part 1/5") as read:
        assert read("›") == "[bold]x[/bold]"
    assert out.getvalue() == "› "  # no countdown, no escape sequences
