"""The wall clock, with a way for tests and demos to start it at another time."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime

from engine.errors import UsageError

Clock = Callable[[], datetime]
"""What code is given instead of reading the time itself: now, as an aware datetime."""

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def make_clock() -> Clock:
    """Now, in UTC. `ATTNQUIZ_NOW` (ISO 8601) starts the clock at that moment instead."""
    start = os.environ.get("ATTNQUIZ_NOW")
    if not start:
        return lambda: datetime.now(UTC)
    try:
        base = datetime.fromisoformat(start)
    except ValueError as exc:
        raise UsageError(f"ATTNQUIZ_NOW={start!r} is not an ISO 8601 time") from exc
    if base.tzinfo is None:
        base = base.replace(tzinfo=UTC)
    # Reviews are stored as milliseconds since 1970, and due dates run up to a century ahead:
    # a clock outside these years would store times the store cannot hold.
    if not EARLIEST <= base <= LATEST:
        raise UsageError(
            f"ATTNQUIZ_NOW={start!r} is outside the years {EARLIEST.year} to {LATEST.year - 1}, "
            "the times a review can be stored at; give a time within them"
        )
    t0 = time.monotonic()
    return lambda: datetime.fromtimestamp(base.timestamp() + time.monotonic() - t0, UTC)
