"""What the parent learns from a sandbox: the outcome of each call and a report on the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "error", "crash", "timeout", "memory"]
# Statuses after which the sandboxed process is gone; later calls repeat the same result.
FATAL: frozenset[str] = frozenset({"crash", "timeout", "memory"})


@dataclass(frozen=True)
class CallResult:
    """One call of the submitted function.

    `value` (status "ok" only) is a NumPy array, a tuple of arrays (0-d items become NumPy
    scalars) when the function returned a tuple, a `ListValue` when it returned a list of
    arrays (read it with `as_returned`), or a `NotAnArray` for what was not numbers (also as
    an item of a tuple or list). `error` is one line such as
    "ZeroDivisionError: division by zero (line 7)". `seconds` is the parent's wall-clock time
    from the first byte of the request to the last byte of the reply: it includes moving the
    arrays both ways and converting the result, not the start of the process or the import.
    `peak_bytes`, when the call was measured, is how far the worker's resident memory rose
    above its size before the call (None: not measured, or not measurable here).
    """

    status: Status
    value: Any | None
    error: str | None
    seconds: float | None
    peak_bytes: int | None = None


@dataclass(frozen=True)
class SandboxReport:
    """How the submission was confined, what it printed (the tails), and how its import went.

    `isolation` maps each promise ("landlock", "network", "user", "processes", ...) to what
    was actually in force; a value starting with "unavailable" means that layer is missing.
    The tails are the last `max_output_bytes` of each stream, decoded leniently, with terminal
    control characters made visible so printed text cannot redraw the grader's screen.
    """

    isolation: dict[str, str]
    stdout_tail: str
    stderr_tail: str
    import_error: str | None
    import_status: Status
    function_found: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0


@dataclass(frozen=True)
class NotAnArray:
    """In a call's value, something the function returned that is not numbers (None, a dict,
    text, an object NumPy cannot convert): `description` says what, such as "a dict ({...})",
    as one line the submission controls (print it literally)."""

    description: str

    def __str__(self) -> str:
        return self.description


class ListValue(tuple[Any, ...]):
    """A list (or other sequence) of arrays the function returned, such as `[out, weights]`.

    It reads like a tuple (its first item is the output) unless its items are the output built
    piece by piece (a list of rows, one array per batch): `as_returned` picks the reading from
    the expected shape.
    """


def as_returned(value: Any, shape: tuple[int, ...]) -> Any:
    """`value` as a careful grader reads it when the output should have `shape`: a list of
    arrays is its items stacked when that gives `shape` (or, when neither reading has `shape`,
    when that gives the expected number of dimensions), else a tuple whose first item is the
    output; a list of pieces (rows) of different lengths is no array at all. Other values are
    returned unchanged."""
    if not isinstance(value, ListValue):
        return value
    shape = tuple(shape)
    shapes = {getattr(item, "shape", None) for item in value}
    first = getattr(value[0], "shape", None) if value else None
    piece = next(iter(shapes)) if len(shapes) == 1 else None
    if piece is not None and (
        (len(value), *piece) == shape or (first != shape and len(piece) + 1 == len(shape))
    ):
        import numpy as np

        return np.stack(value)
    ranks = {getattr(item, "ndim", None) for item in value}
    if first != shape and ranks == {len(shape) - 1}:
        pieces = ", ".join(str(item.shape) for item in value[:4])
        more = ", ..." if len(value) > 4 else ""
        return NotAnArray(f"a list of {len(value)} arrays of different shapes ({pieces}{more})")
    return tuple(value)
