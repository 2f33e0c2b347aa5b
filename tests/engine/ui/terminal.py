"""Driving the real `attnquiz` command through a pseudo-terminal, as a learner at a keyboard.

The child gets the pty as its controlling terminal, so Ctrl-C typed as the byte 0x03 becomes
SIGINT, and standard input is a terminal: the interactive front end runs. Reads block until the
expected text appears; the long deadline only turns a hang into a failure, it never decides one.
Ctrl-C is typed once the child waits for a key (`interrupt`), as it is for a person at a keyboard.
Like a real terminal, it answers a cursor position request (`ESC [6n`, which prompt_toolkit
sends before drawing below the prompt) with the cursor on the last row.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time
import warnings
from pathlib import Path

HANG = 120.0  # seconds: a safety net against a hung child, not a timing assertion
ROWS, COLUMNS = 40, 100
CURSOR_POSITION_REQUEST = "\x1b[6n"
# System calls (x86-64 numbers) in which a child waits for a key: read of standard input, and
# the select/poll/epoll family that prompt_toolkit's event loop waits in.
READ, WAITS_FOR_FILES = 0, {7, 23, 232, 270, 271, 281, 441}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    def __init__(self, home: Path, *args: str) -> None:
        env = dict(os.environ)
        env.update(
            {
                "ATTNQUIZ_HOME": str(home),
                "NO_COLOR": "1",
                "COLUMNS": str(COLUMNS),
                "LINES": str(ROWS),
                "TERM": "xterm",
            }
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork in a threaded pytest
            pid, fd = pty.fork()
        if pid == 0:  # the child: size its terminal as a real one is sized, become attnquiz
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            os.execvpe(sys.executable, [sys.executable, "-m", "engine.cli", *args], env)
        self.pid, self.fd = pid, fd
        self._raw = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._seen = 0  # how much of the screen `expect` has consumed
        self.status: int | None = None

    @property
    def screen(self) -> str:
        """Everything shown so far, without colour codes."""
        return _ANSI.sub("", self._raw)

    def expect(self, text: str) -> str:
        """Read until `text` is on the screen (after what earlier calls consumed); what was
        shown up to and including it."""
        while text not in self.screen[self._seen :]:
            ready, _, _ = select.select([self.fd], [], [], HANG)
            if not ready:
                raise AssertionError(f"no {text!r} on the screen:\n{self.screen}")
            if not self._read():
                raise AssertionError(f"the program ended before {text!r}:\n{self.screen}")
        screen = self.screen
        end = screen.index(text, self._seen) + len(text)
        shown, self._seen = screen[self._seen : end], end
        return shown

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def interrupt(self) -> None:
        """Type Ctrl-C once the child waits for a key. CPython's input() misses a SIGINT that
        lands after its last check for signals and before its blocking read, until the next key
        comes: a person cannot type within microseconds of a prompt appearing, this harness can
        (it hung a test for its whole HANG twice in a clean-clone suite)."""
        deadline = time.monotonic() + HANG
        while not self._waiting_for_a_key():
            if time.monotonic() > deadline:
                raise AssertionError(f"the program never waited for a key:\n{self.screen}")
            time.sleep(0.001)
        self.type("\x03")

    def _waiting_for_a_key(self) -> bool:
        """Whether the child's main thread is blocked where a key would wake it."""
        try:
            fields = Path(f"/proc/{self.pid}/syscall").read_text().split()
        except OSError:
            return True  # no /proc to look at: type at once, as before
        if not fields or not fields[0].isdigit():
            return False  # "running", or between system calls
        number = int(fields[0])
        return (number == READ and int(fields[1], 16) == 0) or number in WAITS_FOR_FILES

    def line(self, text: str) -> None:
        self.type(text + "\r")

    def finish(self) -> int:
        """Read to the end; the exit status."""
        while select.select([self.fd], [], [], HANG)[0]:
            if not self._read():
                break
        else:
            raise AssertionError(f"the program did not end:\n{self.screen}")
        _, status = os.waitpid(self.pid, 0)
        self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def rest(self) -> str:
        """What was shown after the last `expect`."""
        return self.screen[self._seen :]

    def _read(self) -> bool:
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            return False
        text = self._decoder.decode(data)
        for _ in range(text.count(CURSOR_POSITION_REQUEST)):
            os.write(self.fd, f"\x1b[{ROWS};1R".encode())
        self._raw += text
        return bool(data)

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)
