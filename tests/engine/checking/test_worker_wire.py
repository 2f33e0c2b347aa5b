"""The worker's wire format read back strictly: exact types, no unknown fields, one short
ValueError for anything else, so that no confused or hostile reply becomes a verdict."""

from __future__ import annotations

import json

import pytest

from engine.checking.derivation.step import Assumptions
from engine.checking.worker.wire import (
    Failure,
    ItemRequest,
    StepRequest,
    failure_from_data,
    item_request_from_data,
    problems_from_data,
    request_from_data,
    request_to_data,
    verdict_from_data,
)
from engine.verdict import Verdict

GOOD = {"correct": True, "valid": True, "interpreted_as": "d_k", "feedback": "", "score": 1}


def test_a_well_formed_verdict_is_read_back() -> None:
    assert verdict_from_data(GOOD) == Verdict(True, True, "d_k", "", 1.0)
    assert verdict_from_data({**GOOD, "score": 0.5}).score == 0.5


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [GOOD],
        {**GOOD, "correct": 1},  # a number is not a boolean
        {**GOOD, "correct": "true"},
        {**GOOD, "score": True},  # a boolean is not a number
        {**GOOD, "score": "1"},
        {**GOOD, "feedback": None},
        {**GOOD, "valid": False},  # correct but unreadable
        {**GOOD, "verdict": "pass"},  # a field the reader does not know
        {key: value for key, value in GOOD.items() if key != "correct"},
    ],
    ids=repr,
)
def test_a_malformed_verdict_is_refused_in_one_line(bad: object) -> None:
    with pytest.raises(ValueError) as refused:
        verdict_from_data(bad)
    assert "\n" not in str(refused.value)


REQUEST = StepRequest(
    previous="E[q·k]",
    step="= Σ_a E[q_a k_a]",
    expected=None,
    assumptions=Assumptions(normal_vectors=("q", "k"), aliases={"d_k": ("d", "dk")}),
    mistakes=(("d_k^2", "that squares the variance"),),
)


def test_a_request_survives_the_trip_through_json_with_its_envelope() -> None:
    line = json.dumps({"id": 3, **request_to_data(REQUEST)})
    assert request_from_data(json.loads(line)) == REQUEST


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"step": 3}, "step"),
        ({"previous": ["E[q·k]"]}, "previous"),
        ({"mistakes": [["only a value"]]}, "mistakes"),
        ({"mistakes": "none"}, "mistakes"),
        ({"assumptions": {"normal_vectors": "q"}}, "assumptions.normal_vectors"),
        ({"assumptions": {"aliases": {"d_k": "d"}}}, "assumptions.aliases"),
        ({"assumptions": {"exec": "import os"}}, "assumptions.exec"),
    ],
)
def test_a_malformed_request_is_refused_and_the_message_names_the_field(
    change: dict[str, object], named: str
) -> None:
    data = {**request_to_data(REQUEST), **change}
    with pytest.raises(ValueError, match=named.replace(".", r"\.")) as refused:
        request_from_data(data)
    assert "\n" not in str(refused.value)


ITEM = {"kind": "expression", "item": {"id": "x", "kind": "expression"}}


def test_an_item_request_is_read_with_or_without_its_answer() -> None:
    envelope = {"id": 5, "op": "grade", **ITEM}
    graded = item_request_from_data({**envelope, "answer": "d"}, with_answer=True)
    assert graded == ItemRequest("expression", {"id": "x", "kind": "expression"}, "d")
    assert item_request_from_data(envelope, with_answer=False).answer is None


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({**ITEM}, "answer"),  # a grade request needs the answer
        ({**ITEM, "answer": 3}, "answer"),
        ({**ITEM, "answer": None}, "answer"),
        ({**ITEM, "kind": 1, "answer": "d"}, "kind"),
        ({**ITEM, "item": "x", "answer": "d"}, "item"),
        ({"item": {}, "answer": "d"}, "kind"),
    ],
)
def test_a_malformed_grade_request_is_refused_and_the_message_names_the_field(
    data: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=f"request {named}") as refused:
        item_request_from_data(data, with_answer=True)
    assert "\n" not in str(refused.value)


def test_a_failure_and_a_list_of_problems_are_read_back() -> None:
    bank = failure_from_data({"id": 1, "error": "bank", "message": "m", "problems": ["p", "q"]})
    assert bank == Failure("bank", "m", ("p", "q"))
    assert failure_from_data({"id": 2, "error": "memory"}) == Failure("memory", "", None)
    assert problems_from_data({"id": 3, "problems": ["p"]}) == ["p"]
    assert problems_from_data({"id": 3, "problems": []}) == []


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "bank",
        {"error": "shell", "message": "m"},  # no such error code
        {"error": 1},
        {"error": "answer", "message": 3},
        {"error": "bank", "problems": "p"},
        {"error": "bank", "problems": [1]},
    ],
    ids=repr,
)
def test_a_malformed_failure_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        failure_from_data(bad)


@pytest.mark.parametrize("bad", [None, {}, {"problems": "p"}, {"problems": [1, "p"]}], ids=repr)
def test_a_malformed_list_of_problems_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        problems_from_data(bad)
