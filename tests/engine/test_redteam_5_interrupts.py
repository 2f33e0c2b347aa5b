"""Red team, fifth pass: Ctrl-C while an answer is being written to the store.

The review is written in one transaction; a KeyboardInterrupt raised inside it (Ctrl-C pressed
while the store waits for another attnquiz's lock, or a second Ctrl-C while the graded answer
is saved on the first) rolled the transaction back: the answer was lost, though the learner
had rated it and the session then ended "with everything answered saved"."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.drills.clocked.records import TimedRecords
from engine.drills.clocked.run import DrillRun, PartResult
from engine.schedule import Grade
from engine.store import Store, open_store
from tests.engine.test_session import FakeClock, qset, session  # noqa: F401 (fixtures)


@pytest.fixture
def store(store_home: Path) -> Store:
    return open_store(store_home)


def test_ctrl_c_during_the_write_keeps_the_answer_then_stops(store, qset, monkeypatch) -> None:  # noqa: F811
    s = session(store, qset, FakeClock())
    question = s.next_question()
    assert question is not None
    review = s.scheduling.review

    def pressed_meanwhile(*args, **kwargs):  # runs inside the store's transaction
        os.kill(os.getpid(), signal.SIGINT)
        return review(*args, **kwargs)

    monkeypatch.setattr(s.scheduling, "review", pressed_meanwhile)
    with pytest.raises(KeyboardInterrupt):
        s.commit(question, Grade.GOOD, None, None, 100)
    stored = store.db.execute("SELECT item_id FROM reviews").fetchall()
    assert stored == [(question.item.id,)]
    assert s.summary.reviewed == 1  # the session's count says what the store holds
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _PressedOnRead(PartResult):
    """A part whose attempt count is read inside the save's transaction: Ctrl-C comes then."""

    @property  # type: ignore[override]
    def attempts(self) -> int:
        os.kill(os.getpid(), signal.SIGINT)
        return 1

    @attempts.setter
    def attempts(self, _value: int) -> None:
        pass


def test_ctrl_c_during_a_timed_runs_first_save_keeps_the_run(store) -> None:
    # Rolled back, the run kept the id it was given in the transaction, with no row: every
    # later save updated nothing, and the whole run was lost without a word.
    run = DrillRun(
        "demo", "timed", datetime(2026, 3, 2, tzinfo=UTC), 60, [_PressedOnRead("p", "P")]
    )
    with pytest.raises(KeyboardInterrupt):
        TimedRecords(store.db).save(run)
    rows = store.db.execute("SELECT id FROM timed_runs").fetchall()
    parts = store.db.execute("SELECT run_id, attempts FROM timed_parts").fetchall()
    assert rows == [(run.run_id,)] and parts == [(run.run_id, 1)]
