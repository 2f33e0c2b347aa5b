"""A live countdown on the terminal's last line while the learner types, and the time limit.

While `input()` waits for an answer, a thread redraws the time left on the bottom line of the
terminal. That line is kept out of the scrolling region (as apt does for its progress bar), so the
question, the typed answer and everything printed above scroll as usual and are never
overwritten, however long the answer. When the time is up the thread sends SIGALRM to the main
thread, whose handler raises `TimeUp`: the waiting `input()` returns at once and the part ends.

The parts are small so that tests can drive them without real time: `Countdown.tick` is pure
given its clock, `StatusLine` only writes escape sequences to the function it is given.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from rich.console import Console

from engine.drills.clocked.run import TimeUp

SAVE, RESTORE = "\x1b7", "\x1b8"
CLEAR_LINE = "\x1b[2K"
TICK_SECONDS = 0.25
# SGR colours of the status line by time left; none when colour is off (NO_COLOR).
COLOURS = ((60.0, "\x1b[32m"), (20.0, "\x1b[33m"), (0.0, "\x1b[1;31m"))


def clock_text(seconds: float) -> str:
    """`m:ss`, to the nearest second."""
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


class StatusLine:
    """The terminal's last row, outside the scrolling region, written without moving the cursor."""

    def __init__(self, write: Callable[[str], None], rows: Callable[[], int]) -> None:
        self.write = write
        self.rows = rows
        self.reserved_rows = 0

    def reserve(self) -> None:
        """Keep the last row for the status; call it with the cursor at the start of a line."""
        rows = self.rows()
        # The newline scrolls when the cursor is on the last row; moving back up keeps our place.
        self.write(f"\n\x1b[1A{SAVE}\x1b[1;{rows - 1}r{RESTORE}")
        self.reserved_rows = rows

    def show(self, text: str) -> None:
        rows = self.rows()
        if rows != self.reserved_rows:  # the terminal was resized: reserve its new last row
            self.write(f"{SAVE}\x1b[1;{rows - 1}r{RESTORE}")
            self.reserved_rows = rows
        self.write(f"{SAVE}\x1b[{rows};1H{CLEAR_LINE}{text}\x1b[0m{RESTORE}")

    def release(self) -> None:
        """Give the last row back to the scrolling text, empty."""
        rows = self.rows()
        self.write(f"{SAVE}\x1b[r\x1b[{rows};1H{CLEAR_LINE}{RESTORE}")
        self.reserved_rows = 0


class Countdown:
    """The time left before `deadline` (on `clock`'s scale), shown at each tick; time-up once."""

    def __init__(
        self,
        deadline: float,
        clock: Callable[[], float],
        show: Callable[[float], None],
        on_time_up: Callable[[], None],
    ) -> None:
        self.deadline = deadline
        self.clock = clock
        self.show = show
        self.on_time_up = on_time_up
        self.expired = False

    def tick(self) -> bool:
        """Show the time left; at the deadline call `on_time_up` (only once). True while time
        remains."""
        if self.expired:
            return False
        left = self.deadline - self.clock()
        self.show(max(0.0, left))
        if left <= 0:
            self.expired = True
            self.on_time_up()
            return False
        return True


class Ticker:
    """A daemon thread calling `countdown.tick()` every `interval` seconds until stopped."""

    def __init__(self, countdown: Countdown, interval: float = TICK_SECONDS) -> None:
        self.countdown = countdown
        self.interval = interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="countdown", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        while self.countdown.tick() and not self.stopped.wait(self.interval):
            pass

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join()


def status_text(left: float, words: str, *, colour: bool) -> str:
    """What the status line says: `⏱ 1:23 left · words`, coloured by how little time is left."""
    # Rounded up, so that 0:00 shows only when the time is up.
    text = f"⏱ {clock_text(math.ceil(left))} left" + (f" · {words}" if words else "")
    if not colour:
        return text
    sgr = next(code for limit, code in COLOURS if left > limit or limit == 0.0)
    return f"{sgr}{text}"


def alarm_main_thread() -> None:
    """Interrupt the main thread's blocking read: its SIGALRM handler raises `TimeUp`."""
    main = threading.main_thread().ident
    if main is not None and hasattr(signal, "pthread_kill"):
        signal.pthread_kill(main, signal.SIGALRM)


@contextlib.contextmanager
def live_countdown(
    countdown: Countdown, status: StatusLine, *, interval: float = TICK_SECONDS
) -> Iterator[None]:
    """Run the body (an `input()` that waits) with the countdown live; `TimeUp` at the deadline.

    Call it from the main thread. Where SIGALRM does not exist the countdown is still shown,
    and the drill's core refuses the late answer once it comes.
    """
    armed = [True]

    def time_up(signum: int, frame: object) -> None:
        if armed[0]:
            armed[0] = False
            raise TimeUp

    can_alarm = hasattr(signal, "SIGALRM") and hasattr(signal, "pthread_kill")
    previous = signal.signal(signal.SIGALRM, time_up) if can_alarm else None
    status.reserve()
    ticker = Ticker(countdown, interval)
    try:
        ticker.start()
        yield
    finally:
        armed[0] = False  # first, so a late alarm can no longer raise in the middle of cleanup
        ticker.stop()  # joined: it sends nothing more before the old handler is back
        status.release()
        if can_alarm:
            signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)


def discard_typed_input() -> None:
    """Drop what was typed but not entered when the time ran out, so the shell does not get it."""
    with contextlib.suppress(ImportError, OSError, ValueError):
        import termios

        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


class TerminalCountdown:
    """The live countdown of an interactive front end; nothing where the terminal cannot show it
    (not a terminal, a dumb one, too few rows, or not the main thread)."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.clock = clock

    @property
    def live(self) -> bool:
        return (
            self.console.is_terminal
            and not self.console.is_dumb_terminal
            and _rows() >= 4
            and threading.current_thread() is threading.main_thread()
        )

    @contextlib.contextmanager
    def waiting(self, remaining: float, words: str = "") -> Iterator[None]:
        """The body waits for input with `remaining` seconds shown live; `TimeUp` when they run
        out, after the unfinished line is dropped."""
        if not self.live:
            yield
            return
        colour = not self.console.no_color and self.console.color_system is not None
        status = StatusLine(self._write, _rows)
        countdown = Countdown(
            self.clock() + remaining,
            self.clock,
            lambda left: status.show(status_text(left, words, colour=colour)),
            alarm_main_thread,
        )
        try:
            with live_countdown(countdown, status):
                yield
        except TimeUp:
            self.console.print()  # the cursor was still on the unfinished answer
            discard_typed_input()
            raise

    def _write(self, text: str) -> None:
        self.console.file.write(text)
        self.console.file.flush()


def _rows() -> int:
    return shutil.get_terminal_size().lines
