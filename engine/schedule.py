"""FSRS scheduling through the `fsrs` package: a pure function of card, rating and time.

We keep our own small `CardState` (what the store holds) and convert at the edge, so the rest of
the program never depends on the fsrs classes and the golden tests can pin exact intervals.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import IntEnum

import fsrs.scheduler
from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS

DEFAULT_RETENTION = 0.9
# A card rated Again this many times is a leech: it costs reviews without sticking, and usually
# needs rewriting or a different angle (Anki flags at 8 lapses; our sets are small, so earlier).
LEECH_FAILS = 4
# Cards still in (re)learning come back within the session when due this soon (as in Anki).
LEARN_AHEAD = timedelta(minutes=20)


class Grade(IntEnum):
    """The learner's rating, with the fsrs numbering (1 Again .. 4 Easy)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @classmethod
    def parse(cls, text: str) -> Grade | None:
        """`1`-`4` or a name (`again`, `g`, ...); None when the text names no rating."""
        t = text.strip().lower()
        if t in {"1", "2", "3", "4"}:
            return cls(int(t))
        for grade in cls:
            name = grade.name.lower()
            if t == name or (len(t) == 1 and t == name[0]):
                return grade
        return None


class Phase(IntEnum):
    """Where a card is in its life; NEW means never reviewed (no row in the store yet)."""

    NEW = 0
    LEARNING = 1
    REVIEW = 2
    RELEARNING = 3

    @property
    def word(self) -> str:
        """How the learner reads it: new, learning, review, relearning."""
        return self.name.lower()


@dataclass(frozen=True)
class CardState:
    """Scheduling state of one card, as stored."""

    phase: Phase = Phase.NEW
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None
    reps: int = 0
    fails: int = 0  # times rated Again, in any phase
    lapses: int = 0  # times rated Again after graduating (a review card forgotten)
    suspended: bool = False  # out of the daily queue (a leech), until the learner brings it back

    @property
    def is_leech(self) -> bool:
        return self.fails >= LEECH_FAILS


def local_time(t: datetime) -> datetime:
    """`t` on the local clock, or on UTC's when the local zone's offset is one no clock can
    have (TZ=UTC+24 gives a whole day, which Python refuses): a calendar day always exists."""
    try:
        return t.astimezone()
    except ValueError:
        return t.astimezone(UTC)


def local_midnight(day: date) -> datetime:
    """The start of a local calendar day, with that day's own UTC offset (DST-safe)."""
    try:
        return datetime.combine(day, time(0)).astimezone()
    except ValueError:  # an impossible local offset, as in local_time
        return datetime.combine(day, time(0), tzinfo=UTC)


def local_day_start(now: datetime) -> datetime:
    """Midnight of `now`'s day in the local time zone."""
    local = local_time(now)
    return datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)


def is_due(card: CardState, now: datetime) -> bool:
    """Whether a session started at `now` shows the card: a review card due by the end of the
    local day, a (re)learning card due within LEARN_AHEAD. Never a suspended card, nor one
    without a due date (never reviewed: it is new, not due)."""
    if card.suspended or card.due is None:
        return False
    if card.phase == Phase.REVIEW:
        return card.due <= local_day_start(now) + timedelta(days=1)
    return card.due <= now + LEARN_AHEAD


def check_parameters(values: Sequence[float]) -> tuple[float, ...]:
    """The values as an FSRS parameter vector, or ValueError saying what is wrong with them.

    Fitted or stored vectors pass through here before any card is scheduled with them: the
    right length, finite numbers, and within the bounds the fsrs scheduler accepts.
    """
    if len(values) != len(DEFAULT_PARAMETERS):
        raise ValueError(f"expected {len(DEFAULT_PARAMETERS)} parameters, got {len(values)}")
    vector = []
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"parameter w{index} is not a number: {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"parameter w{index} is not finite: {value}")
        vector.append(float(value))
    try:
        Scheduler(parameters=vector)
    except ValueError as exc:
        first = str(exc).splitlines()[-1].strip()
        raise ValueError(f"the fsrs scheduler refuses them: {first}") from exc
    return tuple(vector)


class Scheduling:
    """An FSRS scheduler with the learner's desired retention and parameters (default or fitted)."""

    def __init__(
        self,
        desired_retention: float = DEFAULT_RETENTION,
        *,
        parameters: tuple[float, ...] | None = None,
        fuzz: bool = True,
    ) -> None:
        if not 0.7 <= desired_retention <= 0.99:
            raise ValueError("desired retention must be between 0.70 and 0.99")
        self._fsrs = Scheduler(
            parameters=DEFAULT_PARAMETERS if parameters is None else parameters,
            desired_retention=desired_retention,
            enable_fuzzing=fuzz,
        )

    @property
    def desired_retention(self) -> float:
        return float(self._fsrs.desired_retention)

    @property
    def parameters(self) -> tuple[float, ...]:
        return tuple(float(w) for w in self._fsrs.parameters)

    def review(self, card: CardState, grade: Grade, now: datetime, *, key: str = "") -> CardState:
        """The card's state after being rated `grade` at `now` (an aware datetime).

        A pure function of its arguments: the fuzz FSRS adds to review intervals is drawn from a
        generator seeded by `key` (which card) and the card's review count (which review), so a
        preview of the four ratings and the commit of the chosen one give the same due time.
        """
        now = now.astimezone(UTC)
        fsrs_card = _to_fsrs(card, now)
        with _seeded_fuzz(fuzz_seed(key, card.reps)):
            after, _log = self._fsrs.review_card(fsrs_card, Rating(int(grade)), now)
        return CardState(
            phase=Phase(int(after.state)),
            step=after.step,
            stability=after.stability,
            difficulty=after.difficulty,
            due=after.due,
            last_review=after.last_review,
            reps=card.reps + 1,
            fails=card.fails + (grade == Grade.AGAIN),
            lapses=card.lapses + (grade == Grade.AGAIN and card.phase == Phase.REVIEW),
            suspended=card.suspended,
        )

    def retrievability(self, card: CardState, now: datetime) -> float:
        if card.phase == Phase.NEW:
            return 0.0
        return float(self._fsrs.get_card_retrievability(_to_fsrs(card, now), now.astimezone(UTC)))


def fuzz_seed(key: str, reps: int) -> int:
    """A stable seed for one review of one card (the same in every process and run)."""
    digest = hashlib.sha256(f"{key}\0{reps}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@contextmanager
def _seeded_fuzz(seed: int) -> Iterator[None]:
    # fsrs draws its fuzz from the module-level `random()` it imported; for one review we lend
    # it a generator of our own, so the draw is a function of the card and the review.
    original = fsrs.scheduler.random
    fsrs.scheduler.random = random.Random(seed).random
    try:
        yield
    finally:
        fsrs.scheduler.random = original


def calendar_days(earlier: datetime, later: datetime) -> int:
    """Whole days from one local calendar date to another (as Anki counts elapsed days)."""
    return (local_time(later).date() - local_time(earlier).date()).days


def _to_fsrs(card: CardState, now: datetime) -> Card:
    if card.phase == Phase.NEW:
        # card_id is required to stop fsrs from sleeping 1 ms to make a unique id.
        return Card(card_id=1, state=State.Learning, step=0, due=now)
    return Card(
        card_id=1,
        state=State(int(card.phase)),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=_elapsed_by_calendar(card.last_review, now),
    )


def _elapsed_by_calendar(last_review: datetime | None, now: datetime) -> datetime | None:
    """The last review moved to the same time of day as `now`, its calendar day kept.

    FSRS counts elapsed days as whole 24-hour spans, but a review card is shown any time on its
    due day. Counting by the learner's calendar day instead makes the time of day of either
    review irrelevant: a card due today is reviewed after exactly its interval, morning or night.
    """
    if last_review is None:
        return None
    days = max(0, calendar_days(last_review, now))
    return min(last_review, now) if days == 0 else now - timedelta(days=days)
