"""Sibling groups are buried within a session; retired ids hand their history to successors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.lineage import inheritance, lineage_problems, successors_of
from engine.bank.siblings import bury_siblings, lone_groups, sibling_map
from engine.errors import BankError
from engine.schedule import CardState, Grade, Phase, Scheduling
from engine.session import ReviewSession
from engine.store import ReviewRecord, Store, open_store
from engine.store.retired import carry_over_retired
from tests.conftest import warm_checker

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
HEADER = "format_version: 1\nset: lab\ntitle: Lab\nitems:\n"


@dataclass(frozen=True)
class Card:
    id: str
    siblings: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    line: int = 1


def recall(item_id: str, extra: str = "") -> str:
    return f"  - id: {item_id}\n    kind: recall\n    prompt: p {item_id}\n    back: b\n{extra}"


# -- siblings, pure ------------------------------------------------------------------------------
def test_cards_sharing_any_group_are_siblings_and_a_lone_group_is_reported() -> None:
    cards = [Card("a", ("g",)), Card("b", ("g", "h")), Card("c", ("h",)), Card("d", ("x",))]
    assert sibling_map(cards) == {
        "a": {"b"},
        "b": {"a", "c"},
        "c": {"b"},
    }
    assert lone_groups(cards) == {"x": "d"}


def test_the_first_card_of_a_group_is_kept_due_ones_before_new_ones() -> None:
    siblings = sibling_map([Card("a", ("g",)), Card("b", ("g",)), Card("c", ("g",))])
    due, new = bury_siblings(["c", "z"], ["a", "b", "y"], siblings)
    assert (due, new) == (["c", "z"], ["y"])
    assert bury_siblings([], ["b", "a", "y"], siblings) == ([], ["b", "y"])


def test_without_groups_nothing_is_buried() -> None:
    assert bury_siblings(["a", "b"], ["c"], {}) == (["a", "b"], ["c"])


# -- lineage, pure -------------------------------------------------------------------------------
def test_successors_are_listed_per_retired_id_and_a_live_retired_id_is_a_problem() -> None:
    cards = [Card("a1", replaces=("a",)), Card("a2", replaces=("a",), line=7), Card("b")]
    assert successors_of(cards) == {"a": ("a1", "a2")}
    assert lineage_problems(cards) == []
    bad = [Card("b", line=3), Card("c", replaces=("b", "c"), line=9)]
    problems = lineage_problems(bad)
    assert [line for line, _ in problems] == [9, 9]
    assert "replaces 'b', which is still an item" in problems[0][1]
    assert "replaces itself" in problems[1][1]


def state(stability: float, due_days: float) -> CardState:
    return CardState(
        phase=Phase.REVIEW,
        stability=stability,
        difficulty=5.0,
        due=NOW + timedelta(days=due_days),
        last_review=NOW - timedelta(days=1),
        reps=3,
    )


def test_a_merge_inherits_the_weakest_memory_and_a_card_of_its_own_wins() -> None:
    retired = {"x": state(20.0, 15), "y": state(4.0, 3), "z": state(4.0, 1)}
    successors = {"x": ("m",), "y": ("m",), "z": ("m", "own")}
    assert inheritance(retired, successors, has_card=["own"]) == {"m": "z"}
    assert inheritance({}, successors, has_card=[]) == {}


# -- the bank format -----------------------------------------------------------------------------
def write_bank(home: Path, text: str, name: str = "lab.yaml") -> None:
    (home / "quizzes" / name).write_text(text, encoding="utf-8")


def test_a_bank_without_the_new_fields_loads_as_before(store_home: Path) -> None:
    write_bank(store_home, HEADER + recall("a") + recall("b"))
    qset = open_set("lab", store_home)
    assert qset.ids == ["a", "b"] and qset.siblings == {} and qset.successors == {}


def test_replacing_an_id_that_is_still_an_item_is_refused_with_its_line(store_home: Path) -> None:
    write_bank(store_home, HEADER + recall("a") + recall("b", "    replaces: [a]\n"))
    with pytest.raises(BankError) as raised:
        open_set("lab", store_home)
    assert any(
        ":9: item 'b' replaces 'a', which is still an item" in p for p in raised.value.problems
    )


def test_a_retired_id_still_live_in_another_file_of_the_set_is_refused(store_home: Path) -> None:
    folder = store_home / "quizzes" / "lab"
    folder.mkdir()
    (folder / "1.yaml").write_text(HEADER + recall("a"), encoding="utf-8")
    (folder / "2.yaml").write_text(HEADER + recall("b", "    replaces: [a]\n"), encoding="utf-8")
    with pytest.raises(BankError) as raised:
        open_set("lab", store_home)
    assert any("replaces 'a', which is still an item in" in p for p in raised.value.problems)


# -- the store and the session ------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def review(store: Store, item_id: str, grade: Grade, at: datetime) -> CardState:
    scheduling = Scheduling(fuzz=False)
    record = ReviewRecord("lab", item_id, int(grade), None, None, 100, at)
    return store.record(record, lambda c: scheduling.review(c, grade, at)).after


def test_split_cards_take_over_the_old_cards_schedule_and_keep_its_log(store_home: Path) -> None:
    store = open_store(store_home)
    old = review(store, "whole", Grade.GOOD, NOW - timedelta(days=2))
    old = review(store, "whole", Grade.GOOD, NOW - timedelta(days=1))
    write_bank(
        store_home,
        HEADER
        + recall("part-1", "    replaces: [whole]\n")
        + recall("part-2", "    replaces: [whole]\n"),
    )
    qset = open_set("lab", store_home)
    assert carry_over_retired(store, "lab", qset.successors) == {
        "part-1": "whole",
        "part-2": "whole",
    }
    cards = store.cards("lab", ["part-1", "part-2", "whole"])
    assert cards["part-1"] == cards["part-2"] == cards["whole"] == old
    # Introduced back then: the split does not use up today's new cards.
    assert store.introduced_since("lab", NOW - timedelta(hours=1), ["part-1", "part-2"]) == 0
    assert (
        store.db.execute("SELECT count(*) FROM reviews WHERE item_id = 'whole'").fetchone()[0] == 2
    )
    # Run again: a successor that has a card of its own keeps it.
    assert carry_over_retired(store, "lab", qset.successors) == {}


def test_a_session_schedules_a_successor_from_its_inherited_card(store_home: Path) -> None:
    store = open_store(store_home)
    review(store, "whole", Grade.GOOD, NOW - timedelta(days=3))
    write_bank(store_home, HEADER + recall("part", "    replaces: [whole]\n") + recall("fresh"))
    clock = Clock()
    session = ReviewSession(
        store, open_set("lab", store_home), Scheduling(fuzz=False), clock, checker=warm_checker()
    )
    question = session.next_question()
    assert question is not None and question.item.id == "part"
    assert question.phase != Phase.NEW  # due from the old card's history, not a new card
    outcome = session.commit(question, Grade.GOOD, None, None, 100)
    assert outcome.before.reps == 1 and outcome.after.reps == 2


def test_a_session_shows_one_card_of_a_sibling_group_and_the_other_later(store_home: Path) -> None:
    write_bank(
        store_home,
        HEADER
        + recall("weight", "    siblings: [identity]\n")
        + recall("output", "    siblings: [identity]\n")
        + recall("other"),
    )
    store, clock = open_store(store_home), Clock()
    qset = open_set("lab", store_home)
    first = ReviewSession(
        store, qset, Scheduling(fuzz=False), clock, new_per_day=2, checker=warm_checker()
    )
    shown = []
    while (q := first.next_question()) is not None:
        shown.append(q.item.id)
        first.commit(q, Grade.EASY, None, None, 100)
    assert shown == ["weight", "other"]  # the buried sibling does not use up a new-card slot
    clock.now += timedelta(days=1)
    second = ReviewSession(
        store, qset, Scheduling(fuzz=False), clock, new_per_day=2, checker=warm_checker()
    )
    question = second.next_question()
    assert question is not None and question.item.id == "output"
