"""Review sessions: what comes next, daily limits, cram, undo, relearning within the session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.schedule import Grade, Phase, Scheduling
from engine.session import Question, ReviewSession, grade_answer
from engine.store import Store, open_store


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
    return ReviewSession(store, qset, Scheduling(fuzz=False), clock, **kw)  # type: ignore[arg-type]


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
    grade, verdict = grade_answer(q, "a")
    assert grade == Grade.GOOD and verdict and verdict.correct
    grade, verdict = grade_answer(q, "2")
    assert grade == Grade.AGAIN and verdict and not verdict.correct
    grade, verdict = grade_answer(q, "banana")
    assert grade == Grade.AGAIN and verdict and not verdict.valid


def test_a_self_rated_card_takes_the_learners_rating(qset) -> None:
    item = qset.item("recall-one")
    assert item is not None
    q = Question(item=item, number=1, phase=Phase.NEW, seed=0)
    assert grade_answer(q, "hard")[0] == Grade.HARD
    assert grade_answer(q, "dunno")[0] == Grade.AGAIN


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
    only = QuestionSet(name="15", title="t", items=(item,), sources=())
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
