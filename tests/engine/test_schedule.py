"""The FSRS wrapper gives the intervals the fsrs reference implementation publishes."""

import math
from datetime import UTC, datetime, timedelta

import pytest

from engine.schedule import (
    DEFAULT_PARAMETERS,
    CardState,
    Grade,
    Phase,
    Scheduling,
    check_parameters,
    is_due,
    local_day_start,
)

G, A = Grade.GOOD, Grade.AGAIN


def intervals(ratings: list[Grade], scheduling: Scheduling) -> tuple[list[int], CardState]:
    card = CardState()
    now = datetime(2022, 11, 29, 12, 30, tzinfo=UTC)
    days = []
    for grade in ratings:
        card = scheduling.review(card, grade, now)
        assert card.due is not None and card.last_review is not None
        days.append((card.due - card.last_review).days)
        now = card.due
    return days, card


def test_golden_sequence_of_good_and_again_matches_the_fsrs6_reference() -> None:
    # The FSRS-6 reference sequence of the open-spaced-repetition test suites (py-fsrs,
    # ts-fsrs): default parameters, no fuzz, each review on its due date.
    ratings = [G, G, G, G, G, G, A, A, G, G, G, G, G]
    days, card = intervals(ratings, Scheduling(fuzz=False))
    assert days == [0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21]
    assert card.reps == 13
    assert card.fails == 2
    assert card.phase == Phase.REVIEW


def test_a_new_card_rated_again_comes_back_in_a_minute() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    card = Scheduling(fuzz=False).review(CardState(), A, now)
    assert card.phase == Phase.LEARNING
    assert card.due == now + timedelta(minutes=1)


def test_lower_desired_retention_gives_longer_intervals() -> None:
    ratings = [G, G, G, G]
    strict, _ = intervals(ratings, Scheduling(0.95, fuzz=False))
    relaxed, _ = intervals(ratings, Scheduling(0.8, fuzz=False))
    assert relaxed[-1] > strict[-1]


def test_fourth_miss_makes_a_leech() -> None:
    s = Scheduling(fuzz=False)
    card = CardState()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(1, 5):
        card = s.review(card, A, now)
        assert card.is_leech == (n >= 4)
        now += timedelta(minutes=1)


@pytest.mark.parametrize("retention", [0.5, 0.999])
def test_retention_outside_the_sensible_range_is_refused(retention: float) -> None:
    with pytest.raises(ValueError, match="between"):
        Scheduling(retention)


@pytest.mark.parametrize(
    ("text", "grade"),
    [("1", A), ("again", A), ("G", G), (" good ", G), ("4", Grade.EASY), ("h", Grade.HARD)],
)
def test_ratings_parse_from_numbers_names_and_initials(text: str, grade: Grade) -> None:
    assert Grade.parse(text) == grade


@pytest.mark.parametrize("text", ["", "0", "5", "goodish", "x", "3 4"])
def test_other_text_is_no_rating(text: str) -> None:
    assert Grade.parse(text) is None


# A learner who remembers new cards far longer than FSRS's defaults assume: larger initial
# stabilities w0-w3, every one within the bounds fsrs accepts.
SLOW_FORGETTER = (1.5, 4.0, 9.0, 20.0, *DEFAULT_PARAMETERS[4:])


def test_fitted_parameters_change_the_intervals() -> None:
    ratings = [G, G, G, G]
    default, _ = intervals(ratings, Scheduling(fuzz=False))
    fitted, _ = intervals(ratings, Scheduling(fuzz=False, parameters=SLOW_FORGETTER))
    assert fitted != default
    assert fitted[2] > default[2]  # remembers longer, so waits longer
    assert Scheduling(parameters=SLOW_FORGETTER).parameters == SLOW_FORGETTER


def test_a_new_cards_first_stability_is_the_parameter_of_its_rating() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    s = Scheduling(fuzz=False, parameters=SLOW_FORGETTER)
    for grade in Grade:
        card = s.review(CardState(), grade, now)
        assert card.stability == pytest.approx(SLOW_FORGETTER[grade - 1])


def test_default_parameters_pass_the_check_unchanged() -> None:
    assert check_parameters(list(DEFAULT_PARAMETERS)) == tuple(DEFAULT_PARAMETERS)
    assert Scheduling().parameters == tuple(DEFAULT_PARAMETERS)


@pytest.mark.parametrize(
    ("vector", "problem"),
    [
        (DEFAULT_PARAMETERS[:-1], "expected 21 parameters, got 20"),
        ((*DEFAULT_PARAMETERS, 0.1), "expected 21 parameters, got 22"),
        ((math.nan, *DEFAULT_PARAMETERS[1:]), "w0 is not finite"),
        ((*DEFAULT_PARAMETERS[:5], math.inf, *DEFAULT_PARAMETERS[6:]), "w5 is not finite"),
        (("0.2", *DEFAULT_PARAMETERS[1:]), "w0 is not a number"),
        ((*DEFAULT_PARAMETERS[:3], 500.0, *DEFAULT_PARAMETERS[4:]), "refuses them"),
    ],
)
def test_unusable_parameter_vectors_are_refused_with_the_reason(
    vector: tuple[object, ...], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        check_parameters(vector)  # type: ignore[arg-type]


def graduated(scheduling: Scheduling, at: datetime, key: str = "demo/a") -> CardState:
    card = scheduling.review(CardState(), Grade.GOOD, at, key=key)
    for _ in range(3):
        if card.phase == Phase.REVIEW:
            break
        assert card.due is not None
        card = scheduling.review(card, Grade.GOOD, card.due, key=key)
    assert card.phase == Phase.REVIEW
    return card


def test_fuzz_is_drawn_once_per_card_and_review() -> None:
    fuzzed = Scheduling()
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    card = graduated(fuzzed, start)
    assert card.due is not None
    later = card.due + timedelta(days=30)  # long enough for a fuzzed interval of weeks
    for grade in Grade:
        dues = {fuzzed.review(card, grade, later, key="demo/a").due for _ in range(20)}
        assert len(dues) == 1, grade  # the same review of the same card: the same due time
    # ...yet the fuzz is there: other cards (and the next review) draw other intervals.
    easy = {fuzzed.review(card, Grade.EASY, later, key=f"demo/{n}").due for n in range(40)}
    assert len(easy) > 1
    plain = Scheduling(fuzz=False).review(card, Grade.EASY, later, key="demo/a").due
    assert plain is not None and min(easy) <= plain <= max(easy)  # type: ignore[type-var]


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch):
    """The learner's local time is Berlin's (UTC+1 in March)."""
    import time

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("berlin")
@pytest.mark.parametrize("clock", ["09:00:00", "09:01:00", "00:30:00", "23:45:00"])
def test_the_time_of_day_on_the_due_day_does_not_change_the_outcome(clock: str) -> None:
    # The case: graduated at 09:00:30, reviewed two calendar days later at 09:00:00
    # (47 h 59 min in real time: "a day early" for FSRS) or at 09:01:00 (48 h).
    s = Scheduling(fuzz=False)
    card = CardState(
        phase=Phase.REVIEW,
        stability=2.3,
        difficulty=5.0,
        due=datetime.fromisoformat("2026-03-04T09:00:30+01:00"),
        last_review=datetime.fromisoformat("2026-03-02T09:00:30+01:00"),
        reps=2,
    )
    reference = s.review(card, Grade.GOOD, datetime.fromisoformat("2026-03-04T12:00:00+01:00"))
    now = datetime.fromisoformat(f"2026-03-04T{clock}+01:00")
    after = s.review(card, Grade.GOOD, now)
    assert after.stability == pytest.approx(reference.stability)
    assert after.due is not None and reference.due is not None
    assert (after.due - now).days == (reference.due - reference.last_review).days  # type: ignore[operator]
    assert s.retrievability(card, now) == pytest.approx(
        s.retrievability(card, reference.last_review)
    )  # type: ignore[arg-type]


def test_lapses_count_only_graduated_cards_forgotten() -> None:
    s = Scheduling(fuzz=False)
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    learning = s.review(CardState(), Grade.AGAIN, start)
    assert (learning.fails, learning.lapses) == (1, 0)
    card = graduated(s, start)
    assert card.due is not None
    forgotten = s.review(card, Grade.AGAIN, card.due)
    assert (forgotten.fails, forgotten.lapses, forgotten.phase) == (1, 1, Phase.RELEARNING)


@pytest.mark.parametrize(
    ("phase", "due_after", "suspended", "shown"),
    [
        (Phase.REVIEW, "end_of_day", False, True),  # due later today: shown today
        (Phase.REVIEW, "after_end_of_day", False, False),
        (Phase.LEARNING, timedelta(minutes=19), False, True),  # within the learn-ahead
        (Phase.RELEARNING, timedelta(minutes=21), False, False),
        (Phase.REVIEW, -timedelta(days=3), True, False),  # overdue but suspended
        (Phase.LEARNING, -timedelta(minutes=1), False, True),
    ],
)
def test_is_due_is_one_rule_for_sessions_and_drills(
    phase: Phase, due_after: timedelta | str, suspended: bool, shown: bool
) -> None:
    now = datetime(2024, 3, 5, 9, 0, tzinfo=UTC)
    day_end = local_day_start(now) + timedelta(days=1)
    if due_after == "end_of_day":
        due = day_end
    elif due_after == "after_end_of_day":
        due = day_end + timedelta(seconds=1)
    else:
        assert isinstance(due_after, timedelta)
        due = now + due_after
    card = CardState(phase=phase, due=due, suspended=suspended)
    assert is_due(card, now) is shown
    assert not is_due(CardState(), now)  # never reviewed: new, not due
