"""The exit codes every command promises (docs/spec.md, "Exit codes").

Only the command-line edge (`engine.commands.errors.run_guarded`) turns outcomes and errors into
these numbers; everything else names them, never writes the digits.
"""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
"""Success, or a positive verdict."""
EXIT_NEGATIVE: Final = 1
"""A negative verdict: a wrong answer, a failed submission, a drill past its time."""
EXIT_USAGE: Final = 2
"""Bad input or usage: an unknown set or item, an unreadable file, an invalid bank, a bad store."""
EXIT_INTERNAL: Final = 70
"""An internal error, a bug in attnquiz (sysexits' EX_SOFTWARE)."""
EXIT_INTERRUPTED: Final = 130
"""Ctrl-C (128 + SIGINT), after everything answered so far was saved."""


def verdict_code(positive: bool) -> int:
    """The exit code of an outcome: `EXIT_OK` when it is positive (a right answer, a passing
    submission, a drill within its limit), else `EXIT_NEGATIVE`."""
    return EXIT_OK if positive else EXIT_NEGATIVE
