"""A review session: which card comes next, grading, committing, undo. No terminal here.

Time comes from a `clock` the caller passes in, so tests can drive a session through days.
What a rating key promises is what is saved: `preview` schedules the card for each of the four
ratings at one moment, and `commit` saves the chosen one, computed at that same moment with the
same fuzz (seeded per card and review), so the label, the confirmation and the store agree.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from engine.bank.model import QuestionSet
from engine.bank.siblings import bury_siblings
from engine.cards import Item
from engine.cards.choice import ChoiceItem
from engine.cards.exercise import ExerciseItem
from engine.checking.worker.bounded import Checker, grade_card
from engine.interrupts import ctrl_c_held
from engine.schedule import (
    LEARN_AHEAD,
    CardState,
    Grade,
    Phase,
    Scheduling,
    is_due,
    local_day_start,
)
from engine.store import ReviewRecord, Store
from engine.store.retired import carry_over_retired
from engine.store.reviews import Recorded
from engine.store.settings import DEFAULT_NEW_PER_DAY, LeechAction
from engine.verdict import Verdict

Clock = Callable[[], datetime]
# A confident wrong answer comes back after this many other cards (or sooner, if fewer wait).
CONFIDENT_MISS_GAP = 2


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
class Preview:
    """The card as it would be after each rating, all computed at `at` (empty when cramming)."""

    at: datetime
    before: CardState
    after: dict[Grade, CardState]

    def wait(self, grade: Grade) -> timedelta | None:
        """How long until the card is due again if rated `grade`."""
        card = self.after.get(grade)
        return None if card is None or card.due is None else card.due - self.at


@dataclass(frozen=True)
class Outcome:
    item: Item
    grade: Grade
    verdict: Verdict | None
    before: CardState
    after: CardState
    became_leech: bool
    reviewed_at: datetime
    suspended: bool = False  # this answer made the card a leech, and it was suspended

    @property
    def wait(self) -> timedelta | None:
        """From the review to the next one, as the rating key promised."""
        return None if self.after.due is None else self.after.due - self.reviewed_at


@dataclass
class Summary:
    reviewed: int = 0
    correct: int = 0  # typed answers judged right, and self-rated cards recalled
    new: int = 0
    again: int = 0
    next_due: datetime | None = None
    leeches: list[str] = field(default_factory=list)
    suspended: list[str] = field(default_factory=list)
    new_waiting: int = 0  # new cards held back by the daily limit


def grade_answer(question: Question, text: str, checker: Checker) -> tuple[Grade, Verdict | None]:
    """Suggested rating and verdict for one typed line. Self-rated cards parse a rating.

    Typed answers are graded by `checker` (the session's: the command's bounded worker)."""
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
        verdict = grade_card(checker, item, text)
    return (Grade.GOOD if verdict.correct else Grade.AGAIN), verdict


def asks_again(item: Item, verdict: Verdict | None) -> bool:
    """Whether a typed answer could not be read at all: it is not graded (no review is
    logged) and the learner types it again. Choices and ratings are not typed answers; a line
    that names no option or rating still counts as a miss."""
    if item.self_rated or isinstance(item, ChoiceItem):
        return False
    return verdict is not None and not verdict.valid


def suggested_grade(grade: Grade, *, hinted: bool = False, sure: bool | None = None) -> Grade:
    """The rating to suggest for a graded answer: a right answer after a hint, or one the
    learner was unsure of, is Hard at best (as a hint lowers a drill's rating)."""
    if grade != Grade.AGAIN and (hinted or sure is False):
        return min(grade, Grade.HARD)
    return grade


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
        checker: Checker,
        leeches: LeechAction = "suspend",
    ) -> None:
        self.store = store
        # Grades typed answers within a time bound, whatever is typed; passed in like the clock.
        self.checker = checker
        self.qset = qset
        self.scheduling = scheduling
        self.clock = clock
        self.cram = cram
        self.leeches = leeches
        self.items = [i for i in qset.items if not tags or set(tags) & set(i.tags)]
        self.summary = Summary()
        self._history: list[tuple[int, Question, Outcome]] = []
        self._learning: list[tuple[datetime, str]] = []
        self._asked = 0
        self._last: str | None = None  # the item answered last: not shown twice in a row
        now = clock()
        carry_over_retired(store, qset.name, qset.successors)
        self.session_id = store.start_session(qset.name, "cram" if cram else "review", now)
        self._queue: deque[str] = deque(self._initial_queue(now, new_per_day))

    def _initial_queue(self, now: datetime, new_per_day: int) -> list[str]:
        ids = [i.id for i in self.items]
        if self.cram:
            return ids
        cards = self.store.cards(self.qset.name, ids)
        due = sorted((c.due, i) for i, c in cards.items() if is_due(c, now))  # type: ignore[misc]
        introduced = self.store.introduced_since(self.qset.name, local_day_start(now), ids)
        room = max(0, new_per_day - introduced)
        due_ids, new_ids = bury_siblings(
            [i for _, i in due], [i for i in ids if i not in cards], self.qset.siblings
        )
        unseen = sum(1 for i in ids if i not in cards)
        self.summary.new_waiting = unseen - min(room, len(new_ids))  # buried siblings wait too
        return due_ids + new_ids[:room]

    def _card_key(self, item_id: str) -> str:
        return f"{self.qset.name}/{item_id}"

    # -- what comes next ---------------------------------------------------------------------
    def remaining(self) -> tuple[int, int]:
        """(questions queued, cards coming back from learning)."""
        return len(self._queue), len(self._learning)

    def _take_learning(self, horizon: datetime, *, last_too: bool) -> str | None:
        """The (re)learning card due first by `horizon`. The card just answered only when
        `last_too` and no other is ready, so that a missed card keeps its delay while another
        card waits (and its answer is off the screen when it comes back)."""
        self._learning.sort()
        ready = [(due, i) for due, i in self._learning if due <= horizon]
        others = [entry for entry in ready if entry[1] != self._last]
        pick = others[0] if others else (ready[0] if ready and last_too else None)
        if pick is None:
            return None
        self._learning.remove(pick)
        return pick[1]

    def next_question(self) -> Question | None:
        now = self.clock()
        # Learning cards whose step is over come first (as in Anki); then the queue; then, when
        # nothing else is left, learning cards due soon (learn ahead).
        item_id = self._take_learning(now, last_too=False)
        if item_id is None and self._queue:
            item_id = self._queue.popleft()
        if item_id is None:
            item_id = self._take_learning(now + LEARN_AHEAD, last_too=True)
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
    def grade(self, question: Question, text: str) -> tuple[Grade, Verdict | None]:
        """The suggested rating and the verdict for one typed line, by this session's checker."""
        return grade_answer(question, text, self.checker)

    def exercise_file(self, item: ExerciseItem) -> Path:
        """The learner's own file for a coding exercise, in the store's folder."""
        from engine.exercise_attempts import attempt_file

        return attempt_file(self.store.path.parent, self.qset.name, item)

    def preview(self, question: Question) -> Preview:
        """The card after each of the four ratings, at this moment: what the rating keys show.

        Committing with `at=preview.at` saves exactly the chosen one."""
        now = self.clock()
        before = self.store.card(self.qset.name, question.item.id)
        if self.cram:
            return Preview(now, before, {})
        after = {g: self._schedule(question.item.id, before, g, now) for g in Grade}
        return Preview(now, before, after)

    def _schedule(self, item_id: str, card: CardState, grade: Grade, now: datetime) -> CardState:
        """The one computation behind both the preview and the commit."""
        after = self.scheduling.review(card, grade, now, key=self._card_key(item_id))
        if self.leeches == "suspend" and after.is_leech and not card.is_leech:
            after = replace(after, suspended=True)
        return after

    def commit(
        self,
        question: Question,
        grade: Grade,
        answer: str | None,
        verdict: Verdict | None,
        duration_ms: int | None,
        *,
        at: datetime | None = None,
        sure: bool | None = None,
    ) -> Outcome:
        """Record the answer (one transaction) and reschedule the card.

        `at` is the moment of the review (that of the preview the learner rated from; now when
        not given); `sure` the learner's confidence when asked."""
        now = self.clock() if at is None else at
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
            confidence=sure,
        )

        def schedule(card: CardState) -> CardState:
            return self._schedule(item.id, card, grade, now)

        with ctrl_c_held():  # a Ctrl-C now acts once the answer is saved and counted
            recorded: Recorded = self.store.record(record, None if self.cram else schedule)
            became_leech = recorded.after.is_leech and not recorded.before.is_leech
            outcome = Outcome(
                item=item,
                grade=grade,
                verdict=verdict,
                before=recorded.before,
                after=recorded.after,
                became_leech=became_leech,
                reviewed_at=now,
                suspended=became_leech and recorded.after.suspended,
            )
            self._history.append((recorded.review_id, question, outcome))
            self._last = item.id
            self._requeue(
                item.id, outcome, now, confident_miss=sure is True and grade == Grade.AGAIN
            )
            self._count(outcome, +1)
            return outcome

    def _requeue(
        self, item_id: str, outcome: Outcome, now: datetime, *, confident_miss: bool
    ) -> None:
        if self.cram:
            # Cramming: a miss comes back once at the end of the round.
            if outcome.grade == Grade.AGAIN and item_id not in self._queue:
                self._queue.append(item_id)
            return
        if outcome.suspended:
            return
        if confident_miss and self._queue:
            # The errors made with confidence are the ones best corrected: ask again soon.
            self._queue.insert(min(CONFIDENT_MISS_GAP, len(self._queue)), item_id)
            return
        due = outcome.after.due
        if outcome.after.phase != Phase.REVIEW and due is not None and due <= now + LEARN_AHEAD:
            self._learning.append((due, item_id))

    def _count(self, outcome: Outcome, sign: int) -> None:
        s = self.summary
        s.reviewed += sign
        if outcome.verdict is not None:
            s.correct += sign * outcome.verdict.correct
        elif outcome.item.self_rated:
            s.correct += sign * (outcome.grade != Grade.AGAIN)
        s.again += sign * (outcome.grade == Grade.AGAIN)
        s.new += sign * (outcome.before.phase == Phase.NEW)
        for flagged, names in ((outcome.became_leech, s.leeches), (outcome.suspended, s.suspended)):
            if not flagged:
                continue
            if sign > 0:
                names.append(outcome.item.id)
            elif outcome.item.id in names:
                names.remove(outcome.item.id)

    def put_back(self, question: Question) -> None:
        """Return an unanswered question to the front of the queue."""
        self._queue.appendleft(question.item.id)
        self._asked -= 1

    def can_undo(self) -> bool:
        """Whether this session has an answer to take back."""
        return bool(self._history)

    def undo(self) -> Item | None:
        """Take back the last answer of this session; its question comes next again."""
        if not self._history:
            return None
        review_id, question, outcome = self._history[-1]
        if self.store.undo(review_id) is None:
            return None
        self._history.pop()
        item_id = question.item.id
        self._learning = [(d, i) for d, i in self._learning if i != item_id]
        while item_id in self._queue:  # a cram miss or a confident miss queued again
            self._queue.remove(item_id)
        self._queue.appendleft(item_id)
        self._asked -= 1
        self._last = self._history[-1][1].item.id if self._history else None
        self._count(outcome, -1)
        return question.item

    def finish(self) -> Summary:
        now = self.clock()
        self.store.end_session(self.session_id, now)
        cards = self.store.cards(self.qset.name, [i.id for i in self.items])
        upcoming = [c.due for c in cards.values() if c.due is not None and not c.suspended]
        self.summary.next_due = min(upcoming) if upcoming else None
        return self.summary


__all__ = [
    "Outcome",
    "Preview",
    "Question",
    "ReviewSession",
    "Summary",
    "grade_answer",
    "suggested_grade",
]
