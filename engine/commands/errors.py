"""The one edge where failures meet the user: one line on stderr and the exit code docs/spec.md
promises.

Library code raises domain errors (`engine.errors`); this module alone words them for the person
at the terminal and picks the exit code. Anything else that escapes a command is a bug in
attnquiz: it exits 70 with a line that says so, and `ATTNQUIZ_DEBUG=1` adds the traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import sys
import traceback
from collections.abc import Callable
from typing import Any

import typer

from engine.exit_codes import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

__all__ = ["DEBUG_ENV", "error_line", "run_guarded"]

DEBUG_ENV = "ATTNQUIZ_DEBUG"
"""Set to 1 to see the traceback of an internal error."""


def error_line(message: str) -> None:
    # A message may quote a file name or a set name as the user gave it: its controls shown.
    from attention_ref.sandbox.output import visible_controls

    print(f"attnquiz: error: {visible_controls(message)}", file=sys.stderr, flush=True)


def internal_error_line(exc: BaseException) -> str:
    """What the user reads after a bug: that it is one, and how to report it; not the raw text."""
    return (
        f"internal error ({type(exc).__name__}): this is a bug in attnquiz, not something you "
        f"did. Please report it with the command you ran; run it again with {DEBUG_ENV}=1 to "
        "see the traceback."
    )


def _debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


def _command_line_error(exc: typer.TyperException) -> int:
    """Typer's (Click's) own errors: a wrong option, a missing argument, a value out of range."""
    message = exc.format_message()
    if not message:  # `attnquiz` or `attnquiz lab` alone: Typer has already printed the help
        return EXIT_OK
    # A usage error knows the command it came from (Typer vendors Click and exports no
    # UsageError to test for: its errors are caught by type above, the context read here).
    ctx = getattr(exc, "ctx", None)
    hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
    error_line(f"{message}{hint}")
    return EXIT_USAGE


def run_guarded(run: Callable[[], Any]) -> int:
    """Run a command and map what it returns or raises to an exit code."""
    from engine.errors import AttnquizError

    try:
        result = run()
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        return EXIT_INTERRUPTED
    except typer.TyperException as exc:
        return _command_line_error(exc)
    except AttnquizError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        from engine.store.integrity import describe_failure

        error_line(str(describe_failure(None, exc)))
        return EXIT_USAGE
    except BrokenPipeError:
        return _output_closed()
    except SystemExit as exc:
        # rich's answer to a closed standard output is SystemExit(1), raised while handling the
        # BrokenPipeError: 1 would read as a wrong answer; a closed output is no failure.
        if isinstance(exc.__context__, BrokenPipeError):
            return _output_closed()
        raise
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            return _internal_error(exc)
        # Only a name the user gave (a file, a folder, a set) can be too long to use.
        error_line(f"the name {exc.filename} is too long for this file system; use a shorter one")
        return EXIT_USAGE
    except Exception as exc:
        return _internal_error(exc)
    return int(result) if isinstance(result, int) else EXIT_OK


def _output_closed() -> int:
    """Standard output was closed under the command (`| head -1`): nobody reads what is left,
    so it goes nowhere, and the interpreter's last flush finds no closed pipe to complain of."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_OK


def _internal_error(exc: Exception) -> int:
    if _debugging():
        traceback.print_exception(exc, file=sys.stderr)
    error_line(internal_error_line(exc))
    return EXIT_INTERNAL
