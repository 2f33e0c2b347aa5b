"""A review session: which card comes next, grading, committing, undo. No terminal here.

Time comes from a `clock` the caller passes in, so tests can drive a session through days.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta

from engine.bank.model import QuestionSet
from engine.bank.siblings import bury_siblings
from engine.cards import Item
from engine.cards.choice import ChoiceItem
from engine.cards.exercise import ExerciseItem
from engine.cards.typed import TypedItem
from engine.checking.bounded import Checker, default_checker
from engine.errors import AnswerError
from engine.schedule import CardState, Grade, Phase, Scheduling
from engine.store import ReviewRecord, Store
from engine.store.retired import carry_over_retired
from engine.store.reviews import Recorded
from engine.verdict import Verdict

Clock = Callable[[], datetime]
# Cards still in (re)learning come back within the session when due this soon (as in Anki).
LEARN_AHEAD = timedelta(minutes=20)
DEFAULT_NEW_PER_DAY = 10


@dataclass(frozen=True)
class Question:
    item: Item
    number: int
    phase: Phase
    seed: int  # orders multiple-choice options; the card's review count, so replays agree

    @property
    def choices(self) -> list[str] | None:
        return self.item.choices(self.seed)


@dataclass(frozen=True)
class Outcome:
    item: Item
    grade: Grade
    verdict: Verdict | None
    before: CardState
    after: CardState
    became_leech: bool


@dataclass
class Summary:
    reviewed: int = 0
    correct: int = 0
    new: int = 0
    again: int = 0
    next_due: datetime | None = None
    leeches: list[str] = field(default_factory=list)


def local_day_start(now: datetime) -> datetime:
    local = now.astimezone()
    return datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)


def grade_answer(
    question: Question, text: str, checker: Checker | None = None
) -> tuple[Grade, Verdict | None]:
    """Suggested rating and verdict for one typed line. Self-rated cards parse a rating.

    Typed answers are graded by `checker` (the session's; by default the bounded worker)."""
    item = question.item
    if item.self_rated:
        grade = Grade.parse(text)
        if grade is None:
            return Grade.AGAIN, Verdict(
                correct=False, valid=False, feedback=f"{text.strip()!r} is not a rating (1-4)"
            )
        return grade, None
    if isinstance(item, ChoiceItem):
        verdict = item.grade_choice(text, question.seed)
    elif isinstance(item, ExerciseItem):
        from engine.exercise_attempts import grade_attempt

        verdict = grade_attempt(item, text)  # the line is the path of the learner's file
    else:
        try:
            if isinstance(item, TypedItem):
                verdict = (checker or default_checker()).grade(item, text)
            else:
                verdict = item.grade(text)
        except AnswerError as exc:
            verdict = Verdict(correct=False, valid=False, feedback=str(exc))
    return (Grade.GOOD if verdict.correct else Grade.AGAIN), verdict


def asks_again(item: Item, verdict: Verdict | None) -> bool:
    """Whether a typed answer could not be read at all: it is not graded (no review is
    logged) and the learner types it again. Choices and ratings are not typed answers; a line
    that names no option or rating still counts as a miss."""
    if item.self_rated or isinstance(item, ChoiceItem | ExerciseItem):
        return False  # exercises say themselves what to do with a path that is no file
    return verdict is not None and not verdict.valid


class ReviewSession:
    def __init__(
        self,
        store: Store,
        qset: QuestionSet,
        scheduling: Scheduling,
        clock: Clock,
        *,
        new_per_day: int = DEFAULT_NEW_PER_DAY,
        cram: bool = False,
        tags: tuple[str, ...] = (),
        checker: Checker | None = None,
    ) -> None:
        self.store = store
        # Grades typed answers within a time bound, whatever is typed; passed in like the clock.
        self.checker: Checker = checker or default_checker()
        self.qset = qset
        self.scheduling = scheduling
        self.clock = clock
        self.cram = cram
        self.items = [i for i in qset.items if not tags or set(tags) & set(i.tags)]
        self.summary = Summary()
        self._history: list[tuple[int, Question, Outcome]] = []
        self._learning: list[tuple[datetime, str]] = []
        self._asked = 0
        now = clock()
        carry_over_retired(store, qset.name, qset.successors)
        self.session_id = store.start_session(qset.name, "cram" if cram else "review", now)
        self._queue: deque[str] = deque(self._initial_queue(now, new_per_day))

    def _initial_queue(self, now: datetime, new_per_day: int) -> list[str]:
        ids = [i.id for i in self.items]
        if self.cram:
            return ids
        cards = self.store.cards(self.qset.name, ids)
        day_end = local_day_start(now) + timedelta(days=1)

        def is_due(card: CardState) -> bool:
            assert card.due is not None
            horizon = day_end if card.phase == Phase.REVIEW else now + LEARN_AHEAD
            return card.due <= horizon

        due = sorted((c.due, i) for i, c in cards.items() if is_due(c))  # type: ignore[misc]
        introduced = self.store.introduced_since(self.qset.name, local_day_start(now), ids)
        room = max(0, new_per_day - introduced)
        due_ids, new_ids = bury_siblings(
            [i for _, i in due], [i for i in ids if i not in cards], self.qset.siblings
        )
        return due_ids + new_ids[:room]

    # -- what comes next ---------------------------------------------------------------------
    def remaining(self) -> tuple[int, int]:
        """(questions queued, cards coming back from learning)."""
        return len(self._queue), len(self._learning)

    def next_question(self) -> Question | None:
        item_id: str | None = None
        if self._queue:
            item_id = self._queue.popleft()
        elif self._learning:
            self._learning.sort()
            due, candidate = self._learning[0]
            if due <= self.clock() + LEARN_AHEAD:
                self._learning.pop(0)
                item_id = candidate
        if item_id is None:
            return None
        item = self.qset.item(item_id)
        assert item is not None
        card = self.store.card(self.qset.name, item_id)
        self._asked += 1
        return Question(
            item=item.at_seed(card.reps), number=self._asked, phase=card.phase, seed=card.reps
        )

    # -- answering ---------------------------------------------------------------------------
    def commit(
        self,
        question: Question,
        grade: Grade,
        answer: str | None,
        verdict: Verdict | None,
        duration_ms: int | None,
    ) -> Outcome:
        """Record the answer (one transaction) and reschedule the card."""
        now = self.clock()
        item = question.item
        record = ReviewRecord(
            set_name=self.qset.name,
            item_id=item.id,
            grade=int(grade),
            answer=answer,
            correct=None if verdict is None else verdict.correct,
            duration_ms=duration_ms,
            reviewed_at=now,
            session_id=self.session_id,
            cram=self.cram,
        )
        schedule = None if self.cram else (lambda c: self.scheduling.review(c, grade, now))
        recorded: Recorded = self.store.record(record, schedule)
        outcome = Outcome(
            item=item,
            grade=grade,
            verdict=verdict,
            before=recorded.before,
            after=recorded.after,
            became_leech=recorded.after.is_leech and not recorded.before.is_leech,
        )
        self._history.append((recorded.review_id, question, outcome))
        self._requeue(item.id, outcome, now)
        self._count(outcome, +1)
        return outcome

    def _requeue(self, item_id: str, outcome: Outcome, now: datetime) -> None:
        if self.cram:
            # Cramming: a miss comes back once at the end of the round.
            if outcome.grade == Grade.AGAIN and item_id not in self._queue:
                self._queue.append(item_id)
            return
        due = outcome.after.due
        if outcome.after.phase != Phase.REVIEW and due is not None and due <= now + LEARN_AHEAD:
            self._learning.append((due, item_id))

    def _count(self, outcome: Outcome, sign: int) -> None:
        s = self.summary
        s.reviewed += sign
        s.correct += sign * (outcome.grade != Grade.AGAIN)
        s.again += sign * (outcome.grade == Grade.AGAIN)
        s.new += sign * (outcome.before.phase == Phase.NEW)
        if outcome.became_leech:
            if sign > 0:
                s.leeches.append(outcome.item.id)
            elif outcome.item.id in s.leeches:
                s.leeches.remove(outcome.item.id)

    def put_back(self, question: Question) -> None:
        """Return an unanswered question to the front of the queue."""
        self._queue.appendleft(question.item.id)
        self._asked -= 1

    def undo(self) -> Item | None:
        """Take back the last answer of this session; its question comes next again."""
        if not self._history:
            return None
        review_id, question, outcome = self._history[-1]
        if self.store.undo(review_id) is None:
            return None
        self._history.pop()
        self._learning = [(d, i) for d, i in self._learning if i != question.item.id]
        if self.cram and question.item.id in self._queue:
            self._queue.remove(question.item.id)
        self._queue.appendleft(question.item.id)
        self._asked -= 1
        self._count(outcome, -1)
        return question.item

    def finish(self) -> Summary:
        now = self.clock()
        self.store.end_session(self.session_id, now)
        cards = self.store.cards(self.qset.name, [i.id for i in self.items])
        upcoming = [c.due for c in cards.values() if c.due is not None]
        self.summary.next_due = min(upcoming) if upcoming else None
        return self.summary


__all__ = ["Outcome", "Question", "ReviewSession", "Summary", "grade_answer"]
