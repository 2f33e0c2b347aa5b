"""Real-world styles of attention code, graded as a careful human grader would grade them.

The table `cases/submissions.tsv` names each file of `submissions/corpus/`, the verdict, the
diagnosis and the function a fair grader gives; one parametrized test checks each row, and the
agreement over the whole table is printed (run with `-s` or see the terminal summary).
"""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from attention_ref.grading import Grade, grade_submission
from attention_ref.sandbox import Limits

HERE = Path(__file__).parent
CORPUS = HERE / "submissions" / "corpus"
TABLE = HERE / "cases" / "submissions.tsv"
LIMITS = Limits(seconds_per_call=20.0, memory_bytes=2 * 2**30)
# Real sandboxes (and a wheel build): the quick subset leaves these out.
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Row:
    file: str
    verdict: str
    diagnosis: frozenset[str]
    function: str
    why: str


def _rows() -> list[Row]:
    lines = [line for line in TABLE.read_text(encoding="utf-8").splitlines() if line[:1] != "#"]
    rows = []
    for record in csv.DictReader(lines, delimiter="\t"):
        names = record["diagnosis"]
        rows.append(
            Row(
                record["file"],
                record["verdict"],
                frozenset() if names == "-" else frozenset(names.split(",")),
                record["function"],
                record["why"],
            )
        )
    return rows


ROWS = _rows()


def _agrees(row: Row, grade: Grade) -> bool:
    function_ok = row.function == "-" or grade.function == row.function
    return grade.verdict == row.verdict and set(grade.diagnosis) == row.diagnosis and function_ok


@pytest.fixture(scope="module")
def grades(request: pytest.FixtureRequest) -> dict[str, Grade]:
    def grade(row: Row) -> tuple[str, Grade]:
        return row.file, grade_submission(CORPUS / f"{row.file}.py", limits=LIMITS)

    with ThreadPoolExecutor(max_workers=2) as pool:
        graded = dict(pool.map(grade, ROWS))
    agreeing = sum(_agrees(row, graded[row.file]) for row in ROWS)
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    line = f"submit corpus: agrees with the grader on {agreeing} of {len(ROWS)} files"
    if reporter is not None:
        reporter.write_line(line)
    print(line)
    return graded


def test_the_corpus_covers_every_file_and_enough_styles() -> None:
    assert sorted(row.file for row in ROWS) == sorted(p.stem for p in CORPUS.glob("*.py"))
    assert len(ROWS) >= 30


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.file)
def test_submit_agrees_with_a_careful_grader(row: Row, grades: dict[str, Grade]) -> None:
    grade = grades[row.file]
    got = (grade.verdict, sorted(grade.diagnosis), grade.function)
    failing = [c.message for c in grade.cases if not c.passed][:2]
    assert grade.verdict == row.verdict, (row.why, got, grade.message, failing)
    assert set(grade.diagnosis) == row.diagnosis, (row.why, got, failing)
    if row.function != "-":
        assert grade.function == row.function, (row.why, got)
    assert grade.passed == (row.verdict == "pass")
