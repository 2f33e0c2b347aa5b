"""Turn every failure into one line on stderr and the exit code SPEC.md promises."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable
from typing import Any

import typer

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def error_line(message: str) -> None:
    print(f"attnquiz: error: {message}", file=sys.stderr, flush=True)


def run_guarded(run: Callable[[], Any]) -> int:
    from engine.errors import AttnquizError

    try:
        result = run()
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        return EXIT_INTERRUPTED
    except AttnquizError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        from engine.store.integrity import describe_failure

        error_line(str(describe_failure(None, exc)))
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            # A command-line usage error from Typer (wrong option, missing argument).
            message = exc.format_message()
            if not message:  # `attnquiz` alone: Typer has printed the help
                return EXIT_OK
            ctx = getattr(exc, "ctx", None)
            hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
            error_line(f"{message}{hint}")
            return EXIT_USAGE
        if os.environ.get("ATTNQUIZ_DEBUG"):
            raise
        error_line(f"internal error: {type(exc).__name__}: {exc} (ATTNQUIZ_DEBUG=1 shows details)")
        return EXIT_NEGATIVE
    return int(result or 0) if isinstance(result, int) else EXIT_OK
