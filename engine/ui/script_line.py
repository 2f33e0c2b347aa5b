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
    standard input that was closed (`attnquiz 15 <&-`) reads as an empty one: end of input."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (for the process's life)
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None and not sys.stdin.isatty():
        reconfigure(errors="surrogateescape")


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
