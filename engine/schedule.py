"""FSRS scheduling through the `fsrs` package: a pure function of card, rating and time.

We keep our own small `CardState` (what the store holds) and convert at the edge, so the rest of
the program never depends on the fsrs classes and the golden tests can pin exact intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import IntEnum

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS

DEFAULT_RETENTION = 0.9
# A card rated Again this many times is a leech: it costs reviews without sticking, and usually
# needs rewriting or a different angle (Anki flags at 8 lapses; our sets are small, so earlier).
LEECH_FAILS = 4


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
    fails: int = 0

    @property
    def is_leech(self) -> bool:
        return self.fails >= LEECH_FAILS


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

    def review(self, card: CardState, grade: Grade, now: datetime) -> CardState:
        """The card's state after being rated `grade` at `now` (an aware datetime)."""
        now = now.astimezone(UTC)
        fsrs_card = _to_fsrs(card, now)
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
        )

    def retrievability(self, card: CardState, now: datetime) -> float:
        if card.phase == Phase.NEW:
            return 0.0
        return float(self._fsrs.get_card_retrievability(_to_fsrs(card, now), now.astimezone(UTC)))


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
        last_review=card.last_review,
    )
