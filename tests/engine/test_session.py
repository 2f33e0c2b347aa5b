"""Review sessions: what comes next, daily limits, cram, undo, relearning within the session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.schedule import Grade, Phase, Scheduling
from engine.session import Question, ReviewSession, grade_answer, suggested_grade
from engine.store import Store, open_store
from tests.conftest import warm_checker


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


@pytest.fixture
def qset(store_home: Path) -> QuestionSet:
    return open_set("demo", store_home)


@pytest.fixture
def store(store_home: Path) -> Store:
    return open_store(store_home)


def session(store: Store, qset: QuestionSet, clock: FakeClock, **kw: object) -> ReviewSession:
    return ReviewSession(
        store,
        qset,
        Scheduling(fuzz=False),
        clock,
        checker=warm_checker(),
        **kw,  # type: ignore[arg-type]
    )


def answer_all(s: ReviewSession, grade: Grade = Grade.GOOD) -> list[str]:
    asked = []
    while (q := s.next_question()) is not None:
        asked.append(q.item.id)
        s.commit(q, grade, None, None, 100)
    return asked


def test_new_cards_come_in_bank_order_up_to_the_daily_limit(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=3)
    first = [s.next_question() for _ in range(3)]
    assert [q.item.id for q in first if q] == qset.ids[:3]
    assert s.next_question() is None


def test_the_daily_limit_counts_cards_introduced_earlier_today(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=2)
    for _ in range(2):
        q = s.next_question()
        assert q is not None
        s.commit(q, Grade.EASY, None, None, 100)
    clock.advance(hours=1)
    assert session(store, qset, clock, new_per_day=2).next_question() is None
    clock.advance(days=1)
    next_day = session(store, qset, clock, new_per_day=2)
    assert next_day.remaining()[0] == 2  # a new day: two more new cards, none due yet
    clock.advance(days=30)
    assert session(store, qset, clock, new_per_day=2).remaining()[0] == 2 + 2  # due + new


def test_due_cards_come_before_new_ones_most_overdue_first(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=2)
    a, b = s.next_question(), s.next_question()
    assert a and b
    s.commit(b, Grade.EASY, None, None, 1)
    s.commit(a, Grade.EASY, None, None, 1)
    clock.advance(days=30)
    order = answer_all(session(store, qset, clock, new_per_day=3))
    assert order[:2] == [b.item.id, a.item.id] or order[:2] == [a.item.id, b.item.id]
    assert set(order[2:]) == set(qset.ids[2:5])


def test_a_missed_card_comes_back_in_the_same_session(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=1)
    q = s.next_question()
    assert q is not None
    s.commit(q, Grade.AGAIN, None, None, 1)
    again = s.next_question()
    assert again is not None and again.item.id == q.item.id
    assert again.phase == Phase.LEARNING


def test_cram_reviews_everything_and_changes_no_schedule(store, qset) -> None:
    clock = FakeClock()
    asked = answer_all(session(store, qset, clock, cram=True), Grade.GOOD)
    assert asked == qset.ids
    assert store.cards(qset.name, qset.ids) == {}
    assert store.db.execute("SELECT count(*) FROM reviews WHERE cram = 1").fetchone()[0] == 7


def test_undo_takes_back_the_last_answer_and_asks_it_again(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=5)
    first = s.next_question()
    assert first is not None
    s.commit(first, Grade.GOOD, "x", None, 1)
    current = s.next_question()
    assert current is not None
    s.put_back(current)
    undone = s.undo()
    assert undone is not None and undone.id == first.item.id
    assert store.card(qset.name, first.item.id).phase == Phase.NEW
    assert s.summary.reviewed == 0
    nxt = s.next_question()
    assert nxt is not None and (nxt.item.id, nxt.number) == (first.item.id, 1)
    assert s.next_question().item.id == current.item.id  # type: ignore[union-attr]


def test_nothing_to_undo_at_the_start(store, qset) -> None:
    assert session(store, qset, FakeClock()).undo() is None


def test_tags_select_the_cards_of_a_session(store, qset) -> None:
    asked = answer_all(
        session(store, qset, FakeClock(), tags=("variance",), new_per_day=10), Grade.EASY
    )
    assert asked == ["number-std", "expr-var", "number-var"]


def test_choice_answers_follow_the_shown_order(qset) -> None:
    item = qset.item("choice-axis")
    assert item is not None
    q = Question(item=item, number=1, phase=Phase.NEW, seed=0)
    grade, verdict = grade_answer(q, "a", warm_checker())
    assert grade == Grade.GOOD and verdict and verdict.correct
    grade, verdict = grade_answer(q, "2", warm_checker())
    assert grade == Grade.AGAIN and verdict and not verdict.correct
    grade, verdict = grade_answer(q, "banana", warm_checker())
    assert grade == Grade.AGAIN and verdict and not verdict.valid


def test_a_self_rated_card_takes_the_learners_rating(qset) -> None:
    item = qset.item("recall-one")
    assert item is not None
    q = Question(item=item, number=1, phase=Phase.NEW, seed=0)
    assert grade_answer(q, "hard", warm_checker())[0] == Grade.HARD
    assert grade_answer(q, "dunno", warm_checker())[0] == Grade.AGAIN


def test_finish_reports_the_next_due_time(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=1)
    q = s.next_question()
    assert q is not None
    s.commit(q, Grade.EASY, None, None, 1)
    summary = s.finish()
    assert summary.reviewed == 1 and summary.correct == 1 and summary.new == 1
    assert summary.next_due is not None and summary.next_due > clock.now + timedelta(days=1)


def test_a_computed_card_draws_fresh_inputs_on_its_next_review(store_home: Path) -> None:
    from engine.cards.computed import ComputedItem

    qset = open_set("15", store_home)
    store = open_store(store_home)
    varying = [i for i in qset.items if isinstance(i, ComputedItem) and i.vary]
    assert varying
    item = varying[0]
    only = QuestionSet(name="15", title="t", items=(item,))
    s = session(store, only, FakeClock(), new_per_day=1)
    first = s.next_question()
    assert first is not None and first.item.prompt == item.prompt  # the bank's own inputs
    s.commit(first, Grade.AGAIN, "0", None, 1)
    again = s.next_question()
    assert again is not None and again.item.id == item.id
    assert again.item.prompt != first.item.prompt  # review 2 practises new numbers
    assert again.item.prompt == item.at_seed(1).prompt  # ...reproducibly


def test_drills_use_none_of_the_daily_new_cards_and_are_not_retired(store, qset) -> None:
    from engine.stats import set_stats
    from engine.store import ReviewRecord

    clock = FakeClock()
    s = Scheduling(fuzz=False)
    drill = ReviewRecord("demo", "drill-mean-var-dot", 3, None, None, None, clock.now)
    store.record(drill, lambda c: s.review(c, Grade.GOOD, clock.now))
    assert session(store, qset, clock, new_per_day=2).remaining()[0] == 2
    assert set_stats(store, qset, clock.now, 0.9).retired == 0


def fuzzed_session(
    store: Store, qset: QuestionSet, clock: FakeClock, **kw: object
) -> ReviewSession:
    return ReviewSession(
        store,
        qset,
        Scheduling(),
        clock,
        checker=warm_checker(),
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("grade", list(Grade))
def test_the_preview_of_every_rating_is_what_the_commit_saves(store, qset, grade) -> None:
    # Through every phase: new, learning, review, relearning; fuzz on.
    clock = FakeClock()
    seen_phases = set()
    for day in range(12):
        s = fuzzed_session(store, qset, clock, new_per_day=2)
        while (q := s.next_question()) is not None:
            preview = s.preview(q)
            seen_phases.add(preview.before.phase)
            clock.advance(seconds=7)  # the learner takes a while to press the key
            # The ratings vary per card, so that cards reach every phase.
            chosen = (grade, Grade.EASY, Grade.AGAIN)[(day + q.number) % 3]
            outcome = s.commit(q, chosen, None, None, 1, at=preview.at)
            assert outcome.after == preview.after[chosen]
            assert outcome.wait == preview.wait(chosen)
            assert store.card(qset.name, q.item.id) == preview.after[chosen]
            clock.advance(minutes=11)
        s.finish()
        clock.advance(days=1)
    assert seen_phases == set(Phase)


def test_a_missed_card_keeps_its_delay_while_another_card_waits(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=2)
    first, second = s.next_question(), s.next_question()
    assert first is not None and second is not None
    s.commit(first, Grade.GOOD, None, None, 1)  # learning: back in 10 min
    s.commit(second, Grade.AGAIN, None, None, 1)  # missed: back in 1 min
    nxt = s.next_question()
    assert nxt is not None and nxt.item.id == first.item.id
    s.commit(nxt, Grade.GOOD, None, None, 1)
    last = s.next_question()
    assert last is not None and last.item.id == second.item.id


def test_a_learning_card_whose_step_is_over_comes_before_new_cards(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=5)
    q = s.next_question()
    assert q is not None
    s.commit(q, Grade.AGAIN, None, None, 1)
    clock.advance(minutes=2)
    second = s.next_question()
    assert second is not None and second.item.id != q.item.id  # just answered: not at once
    s.commit(second, Grade.GOOD, None, None, 1)
    third = s.next_question()
    assert third is not None and third.item.id == q.item.id  # due, so before the new cards


def test_suggested_rating_after_a_hint_or_when_unsure_is_hard_at_best() -> None:
    assert suggested_grade(Grade.GOOD, hinted=True) == Grade.HARD
    assert suggested_grade(Grade.GOOD, sure=False) == Grade.HARD
    assert suggested_grade(Grade.GOOD, sure=True) == Grade.GOOD
    assert suggested_grade(Grade.AGAIN, hinted=True, sure=False) == Grade.AGAIN
    assert suggested_grade(Grade.GOOD) == Grade.GOOD


def test_a_confident_miss_comes_back_early_and_confidence_is_logged(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=6)
    q = s.next_question()
    assert q is not None
    s.commit(q, Grade.AGAIN, "x", None, 1, sure=True)
    asked = [s.next_question() for _ in range(3)]
    assert [a.item.id for a in asked if a][2] == q.item.id  # after two other cards
    (confidence,) = store.db.execute("SELECT confidence FROM reviews").fetchone()
    assert confidence == 1


def test_a_blank_answer_rated_good_is_not_counted_correct(store, qset) -> None:
    s = session(store, qset, FakeClock(), new_per_day=3)
    for _ in range(2):  # recall-one (self-rated) then choice-axis (typed)
        q = s.next_question()
        assert q is not None
        s.commit(q, Grade.GOOD, None, None, 1)
    assert (s.summary.reviewed, s.summary.correct) == (2, 1)


def test_new_cards_held_back_by_the_daily_limit_are_counted(store, qset) -> None:
    assert session(store, qset, FakeClock(), new_per_day=0).summary.new_waiting == 7
    assert session(store, qset, FakeClock(), new_per_day=5).summary.new_waiting == 2


def test_nothing_to_undo_is_known_before_asking(store, qset) -> None:
    s = session(store, qset, FakeClock(), new_per_day=2)
    assert not s.can_undo()
    q = s.next_question()
    assert q is not None
    s.commit(q, Grade.GOOD, None, None, 1)
    assert s.can_undo()


def test_a_leech_is_suspended_out_of_the_queue_until_brought_back(store, qset) -> None:
    from engine.store.suspension import suspended_items, unsuspend

    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=1)
    outcomes = []
    while (q := s.next_question()) is not None:
        outcomes.append(s.commit(q, Grade.AGAIN, None, None, 1))
        clock.advance(minutes=2)
    # Missed four times: a leech, suspended at once, so no fifth time in this session.
    assert len(outcomes) == 4 and outcomes[-1].suspended and outcomes[-1].became_leech
    assert s.summary.suspended == ["recall-one"] and s.finish().next_due is None
    assert suspended_items(store, qset.name) == ["recall-one"]
    clock.advance(days=1)
    assert session(store, qset, clock, new_per_day=1).remaining() == (1, 0)  # a new card only
    assert unsuspend(store, qset.name) == ["recall-one"]
    back = session(store, qset, clock, new_per_day=0)
    nxt = back.next_question()
    assert nxt is not None and nxt.item.id == "recall-one"


def test_with_leeches_flagged_a_leech_stays_in_the_reviews(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=1, leeches="flag")
    for _ in range(5):
        q = s.next_question()
        assert q is not None and q.item.id == "recall-one"
        outcome = s.commit(q, Grade.AGAIN, None, None, 1)
        clock.advance(minutes=2)
    assert outcome.after.is_leech and not outcome.after.suspended
    assert s.summary.leeches == ["recall-one"] and s.summary.suspended == []


def test_undo_of_the_suspending_answer_brings_the_card_back(store, qset) -> None:
    clock = FakeClock()
    s = session(store, qset, clock, new_per_day=1)
    for _ in range(4):
        q = s.next_question()
        assert q is not None
        s.commit(q, Grade.AGAIN, None, None, 1)
        clock.advance(minutes=2)
    assert store.card(qset.name, "recall-one").suspended
    assert s.undo() is not None
    card = store.card(qset.name, "recall-one")
    assert not card.suspended and card.fails == 3 and s.summary.suspended == []
