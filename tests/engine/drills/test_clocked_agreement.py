"""How often the clocked drills of set 15 agree with a fair examiner, over answers as typed.

`cases/timed-15*.tsv` answer the timed memorization drill (part, question, answer), and
`cases/rapid-15*.tsv` the rapid-fire shapes drill (template, the round's dimension values,
answer); each row carries the verdict a careful human grader gives: `correct`, `wrong` (readable,
not right) or `unreadable` (not graded: the learner types again). Every answer is graded as the
drill grades it, through the warm bounded checker (the timed drill's code answers in the
sandbox). Each table is one case that prints its agreement and what it misjudged; run
`pytest -s -q -n0 tests/engine/drills/test_clocked_agreement.py` to see the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.drills.clocked.run import QuestionCheck
from engine.drills.rapid.file import load_rapid_drill, rapid_drill_file
from engine.drills.rapid.rounds import render, shape_grader
from engine.drills.timed.file import load_timed_drill, timed_drill_file
from engine.drills.timed.grading import BankChecker
from tests.agreement import REQUIRED_AGREEMENT, Row, read_rows, report
from tests.conftest import warm_checker

CASES = Path(__file__).parent / "cases"


def timed_grader(store: Path) -> Callable[[Row], QuestionCheck]:
    qset = open_set("15", store)
    found = timed_drill_file("15", store)
    assert found is not None
    drill = load_timed_drill(*found, qset)
    parts = {part.id: part for part in drill.parts}
    checker = BankChecker(qset, warm_checker())

    def grade(row: Row) -> QuestionCheck:
        part = parts[row.keys[0]]
        question = part.questions[int(row.keys[1]) - 1]
        return checker.check(part, question, row.answer.replace("\\n", "\n"))

    return grade


def rapid_grader(store: Path) -> Callable[[Row], QuestionCheck]:
    found = rapid_drill_file("15", store)
    assert found is not None
    templates = {t.id: t for t in load_rapid_drill(*found, "15").section.templates}
    grade_shape = shape_grader(warm_checker())

    def grade(row: Row) -> QuestionCheck:
        values: dict[str, str | int] = {}
        for pair in row.keys[1].split():
            name, value = pair.split("=")
            values[name] = int(value) if value.isdigit() else value
        return grade_shape(render(templates[row.keys[0]], values), row.answer)

    return grade


# every table of a drill is read: `timed-15*.tsv` (timed-15, a held-out batch ...), `rapid-15*.tsv`
TABLES = [
    *((path.stem, timed_grader) for path in sorted(CASES.glob("timed-15*.tsv"))),
    *((path.stem, rapid_grader) for path in sorted(CASES.glob("rapid-15*.tsv"))),
]


@pytest.mark.slow  # the timed tables run code in the sandbox; all go through the worker
@pytest.mark.parametrize(("table", "grader"), TABLES)
def test_the_clocked_drills_agree_with_a_fair_examiner(
    store_home: Path, table: str, grader: Callable[[Path], Callable[[Row], QuestionCheck]]
) -> None:
    grade = grader(store_home)
    judged = [(row, grade(row)) for row in read_rows(CASES / f"{table}.tsv", keys=2)]
    assert report(table, judged) >= REQUIRED_AGREEMENT
