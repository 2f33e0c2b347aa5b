"""Reading one line of a script (standard input that is not a terminal), whatever its bytes.

Standard input is decoded with `surrogateescape` (see `tolerant_stdin`), so a byte that is not
UTF-8 arrives as a lone surrogate instead of ending the session with UnicodeDecodeError. Here
each such byte becomes U+FFFD, which no checker reads as an answer, and a note on stderr says
which bytes could not be read: the line is then treated like any other unreadable answer.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

_UNDECODED = re.compile("[\udc80-\udcff]+")


def tolerant_stdin() -> None:
    """Let standard input carry any bytes: undecodable ones arrive as lone surrogates. A
    standard input that was closed (`attnquiz 15 <&-`) reads as an empty one: end of input.

    Under an ASCII locale (C or POSIX with Python's UTF-8 mode off) input is read as UTF-8,
    of which ASCII is a part: a learner's `√d_k` is what was typed, not three unreadable bytes.
    """
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (for the process's life)
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is None:
        return
    if _is_ascii(sys.stdin):
        reconfigure(encoding="utf-8", errors="strict" if sys.stdin.isatty() else "surrogateescape")
    elif not sys.stdin.isatty():
        reconfigure(errors="surrogateescape")


def as_typed(argument: str) -> str:
    """A command-line argument as the learner typed it.

    Under an ASCII locale the interpreter keeps each non-ASCII byte of an argument as a lone
    surrogate; those bytes are the UTF-8 of what was typed (`--answer "√d_k"`), so read them
    as UTF-8. Bytes that are not UTF-8 become U+FFFD, which no checker reads as an answer.
    """
    if not _UNDECODED.search(argument):
        return argument
    try:
        return argument.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no byte could have made: leave it to the reader
        return argument


def tolerant_output() -> None:
    """Let standard output and error show any text: a character their encoding cannot carry
    (θ, √ under an ASCII locale) is printed as an escape such as \\u221a, never an error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not _is_utf8(stream):
            reconfigure(errors="backslashreplace")


# The widths a terminal can have: the help and the tables are laid out at the width the
# environment names, and `COLUMNS=99999999` made lines of that many characters for minutes.
SANE_WIDTHS = (40, 1000)
_WIDTH_VARIABLES = ("COLUMNS", "TERMINAL_WIDTH")  # rich's, and Typer's for its help


def sane_widths() -> None:
    """Bring a width the environment names (`COLUMNS`, `TERMINAL_WIDTH`) within SANE_WIDTHS."""
    low, high = SANE_WIDTHS
    for name in _WIDTH_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and not low <= int(value) <= high:
            os.environ[name] = str(min(max(int(value), low), high))
    # Typer reads TERMINAL_WIDTH once, as its help module is imported; in a process that ran
    # the command line before (the tests), it may be imported already.
    rich_utils = sys.modules.get("typer.rich_utils")
    if rich_utils is not None:
        width = os.environ.get("TERMINAL_WIDTH", "").strip()
        rich_utils.MAX_WIDTH = int(width) if width.isdigit() else None  # type: ignore[attr-defined]


def _encoding(stream: TextIO) -> str:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name
    except LookupError:
        return "ascii"


def _is_ascii(stream: TextIO) -> bool:
    return _encoding(stream) == "ascii"


def _is_utf8(stream: TextIO) -> bool:
    return _encoding(stream) == "utf-8"


def read_script_line(stream: TextIO, err: TextIO) -> str:
    """The next line (with its newline, "" at the end of input), bytes that are not UTF-8 noted."""
    line = stream.readline()
    found = _UNDECODED.findall(line)
    if not found:
        return line
    shown = " ".join(f"0x{ord(c) - 0xDC00:02x}" for c in "".join(found))[:60]
    print(
        f"note: this line holds bytes that are not UTF-8 text ({shown}); they read as \ufffd",
        file=err,
        flush=True,
    )
    return _UNDECODED.sub("\ufffd", line)
