"""The live countdown, driven by hand: a clock the test sets, ticks the test calls, and the
SIGALRM that ends a waiting input when the time is up."""

from __future__ import annotations

import io
import signal
import threading

import pytest
from rich.console import Console

from engine.drills.clocked.countdown import (
    Countdown,
    StatusLine,
    TerminalCountdown,
    alarm_main_thread,
    live_countdown,
    status_text,
)
from engine.drills.clocked.run import TimeUp


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_each_tick_shows_the_time_left_and_the_deadline_fires_once() -> None:
    clock, shown, fired = Clock(), [], []
    countdown = Countdown(130.0, clock, shown.append, lambda: fired.append(clock.now))
    assert countdown.tick()
    clock.now = 129.5
    assert countdown.tick()
    clock.now = 131.0
    assert not countdown.tick()
    assert not countdown.tick()  # expired: nothing more is shown or fired
    assert shown == [30.0, 0.5, 0.0]
    assert fired == [131.0]


def test_the_status_line_lives_on_the_last_row_outside_the_scrolling_region() -> None:
    written: list[str] = []
    rows = [24]
    status = StatusLine(written.append, lambda: rows[0])
    status.reserve()
    status.show("⏱ 1:00 left")
    rows[0] = 30  # the terminal grew: the new last row is reserved before drawing
    status.show("⏱ 0:59 left")
    status.release()
    assert written[0] == "\n\x1b[1A\x1b7\x1b[1;23r\x1b8"
    assert written[1] == "\x1b7\x1b[24;1H\x1b[2K⏱ 1:00 left\x1b[0m\x1b8"
    assert written[2] == "\x1b7\x1b[1;29r\x1b8"
    assert written[3].startswith("\x1b7\x1b[30;1H")
    assert written[4] == "\x1b7\x1b[r\x1b[30;1H\x1b[2K\x1b8"


@pytest.mark.parametrize(
    ("left", "colour"), [(61.0, "\x1b[32m"), (59.2, "\x1b[33m"), (19.0, "\x1b[1;31m")]
)
def test_the_status_turns_yellow_then_red_as_time_runs_out(left: float, colour: str) -> None:
    assert status_text(left, "part 2/5", colour=True).startswith(colour)


def test_without_colour_the_status_is_plain_and_rounds_up() -> None:
    assert status_text(59.2, "part 2/5", colour=False) == "⏱ 1:00 left · part 2/5"
    assert status_text(0.0, "", colour=False) == "⏱ 0:00 left"


def recording_status() -> tuple[StatusLine, list[str]]:
    written: list[str] = []
    return StatusLine(written.append, lambda: 24), written


def test_time_up_interrupts_the_waiting_body_and_restores_everything() -> None:
    before = signal.getsignal(signal.SIGALRM)
    status, written = recording_status()
    clock = Clock()
    # The deadline has passed: the first tick sends the alarm to this (the main) thread.
    countdown = Countdown(clock.now - 1, clock, lambda left: status.show("x"), alarm_main_thread)
    never = threading.Event()
    with pytest.raises(TimeUp), live_countdown(countdown, status, interval=60):
        never.wait(30)  # a blocked input(): only the alarm ends it
    assert signal.getsignal(signal.SIGALRM) is before
    assert written[-1].startswith("\x1b7\x1b[r")  # the scrolling region is whole again


def test_an_answer_before_the_deadline_leaves_no_alarm_behind() -> None:
    before = signal.getsignal(signal.SIGALRM)
    status, written = recording_status()
    clock = Clock()
    countdown = Countdown(
        clock.now + 60, clock, lambda left: status.show(f"{left:.0f}"), alarm_main_thread
    )
    with live_countdown(countdown, status, interval=60):
        pass
    assert signal.getsignal(signal.SIGALRM) is before
    assert not countdown.expired
    assert any("60" in text for text in written)


def test_output_that_is_not_a_terminal_gets_no_escape_sequences() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True)
    countdown = TerminalCountdown(console, Clock())
    assert not countdown.live
    with countdown.waiting(0.0, "part 1/5"):
        console.print("typed")
    assert out.getvalue() == "typed\n"


def test_a_terminal_gets_the_live_status_and_time_up_ends_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LINES", "24")
    monkeypatch.setenv("TERM", "xterm")
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, no_color=True)
    countdown = TerminalCountdown(console, Clock())
    assert countdown.live
    never = threading.Event()
    with pytest.raises(TimeUp), countdown.waiting(0.0, "question 3/12"):
        never.wait(30)
    text = out.getvalue()
    assert "\x1b[1;23r" in text  # the last row was kept for the status
    assert "⏱ 0:00 left · question 3/12" in text  # no colour: NO_COLOR is respected
    assert text.endswith("\n")  # the unfinished answer's line is closed
