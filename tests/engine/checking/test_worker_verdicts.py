"""Grading through the checking worker gives exactly the verdicts of grading in-process."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.cards.typed import NumberItem, TypedItem
from engine.checking.worker.bounded import BoundedChecker
from engine.errors import AnswerError

ANSWERS = [
    ("15", "attention-equation", "softmax(QK^T/sqrt(d_k))V"),
    ("15", "attention-equation", "softmax(Q K^T / d_k) V"),
    ("15", "attention-equation", "V softmax(QK^T/sqrt(d))"),
    ("15", "var-dot", "d"),
    ("15", "var-dot", "sqrt(d)"),
    ("15", "std-512", "22.6"),
    ("15", "std-512", "512"),
    ("15", "shape-scores", "(T_q, T_k)"),
    ("15", "shape-scores", "T_k x T_q"),
    ("15", "intensity", "T d_k / (4 (d_k + T))"),
    ("demo", "number-var", "8"),
    ("demo", "shape-scores", "(T_q, d_k)"),
    ("demo", "expr-var", "sqrt(d_k)"),
    ("demo", "expr-var", "__import__('os')"),
    ("demo", "expr-var", "(" * 500 + "d" + ")" * 500),
    ("demo", "number-std", "eight"),
    ("demo", "shape-out", "(T_q,"),
]


def typed_item(set_name: str, item_id: str, home: Path) -> TypedItem:
    item = open_set(set_name, home).item(item_id)
    assert isinstance(item, TypedItem)
    return item


def outcome(grade, answer: str) -> object:
    """The verdict, or the kind and message of the error the answer raised."""
    try:
        return grade(answer)
    except AnswerError as exc:
        return ("AnswerError", str(exc))


@pytest.mark.parametrize(("set_name", "item_id", "answer"), ANSWERS)
def test_the_worker_gives_the_in_process_verdict(
    set_name: str, item_id: str, answer: str, store_home: Path, checker: BoundedChecker
) -> None:
    item = typed_item(set_name, item_id, store_home)
    in_worker = outcome(partial(checker.grade, item), answer)
    assert in_worker == outcome(item.grade_in_process, answer)


def test_grading_happens_in_the_worker_process(store_home: Path, checker: BoundedChecker) -> None:
    checker.start()
    pid = checker.pid()
    assert pid is not None
    item = typed_item("15", "var-dot", store_home)
    assert checker.grade(item, "d").correct
    assert checker.pid() == pid  # the same warm worker, not a new one per check


def test_a_numbers_answer_text_is_worked_out_by_the_worker(store_home: Path) -> None:
    item = typed_item("15", "std-512", store_home)
    assert isinstance(item, NumberItem)
    assert item.answer_text() == "sqrt(512) ≈ 22.63"


@pytest.mark.slow
def test_lint_through_the_worker_agrees_with_lint_in_process(
    store_home: Path, checker: BoundedChecker
) -> None:
    for set_name in ("15", "demo"):
        for item in open_set(set_name, store_home).items:
            if isinstance(item, TypedItem):
                assert checker.check_bank(item) == item.check_bank_in_process(), item.id
