"""Driving the real `attnquiz` command through a pseudo-terminal, as a learner at a keyboard.

The child gets the pty as its controlling terminal, so Ctrl-C typed as the byte 0x03 becomes
SIGINT, and standard input is a terminal: the interactive front end runs. Reads block until the
expected text appears; the long deadline only turns a hang into a failure, it never decides one.
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
import warnings
from pathlib import Path

HANG = 120.0  # seconds: a safety net against a hung child, not a timing assertion
ROWS, COLUMNS = 40, 100
CURSOR_POSITION_REQUEST = "\x1b[6n"
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
