"""Real-world styles of attention code, graded as a careful human grader would grade them.

Each table `cases/submissions*.tsv` (the first corpus, and held-out ones written blind) names
files of `submissions/corpus/` with the verdict, the diagnosis and the function a fair grader
gives (an optional column `exercise` grades a row as `submit FILE --exercise ID` does, with
that exercise's card); one parametrized test checks each row, and the agreement over each table
is printed (run with `-s` or see the terminal summary).

Every file is graded on a battery drawn from one fresh seed per run, printed with the agreement
(a battery is then built once, not once per file); ATTNQUIZ_CORPUS_SEED=N replays a run.
"""

from __future__ import annotations

import collections
import csv
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from attention_ref.battery import fresh_seed
from attention_ref.discovery import SubmissionError, find_function
from attention_ref.grading import Grade, grade_submission
from attention_ref.sandbox import Limits
from tests.agreement import announce

HERE = Path(__file__).parent
CORPUS = HERE / "submissions" / "corpus"
TABLES = sorted((HERE / "cases").glob("submissions*.tsv"))
LIMITS = Limits(seconds_per_call=20.0, memory_bytes=2 * 2**30)
# Real sandboxes (and a wheel build): the quick subset leaves these out.
pytestmark = pytest.mark.slow
SEED = int(os.environ.get("ATTNQUIZ_CORPUS_SEED") or fresh_seed())


@dataclass(frozen=True)
class Row:
    table: str
    file: str
    verdict: str
    diagnosis: frozenset[str]
    function: str
    why: str
    exercise: str  # "-": plain `submit`


def _rows(table: Path) -> list[Row]:
    lines = [line for line in table.read_text(encoding="utf-8").splitlines() if line[:1] != "#"]
    rows = []
    for record in csv.DictReader(lines, delimiter="\t"):
        names = record["diagnosis"]
        rows.append(
            Row(
                table.name,
                record["file"],
                record["verdict"],
                frozenset() if names == "-" else frozenset(names.split(",")),
                record["function"],
                record["why"],
                record.get("exercise") or "-",
            )
        )
    return rows


ROWS = [row for table in TABLES for row in _rows(table)]


def _agrees(row: Row, grade: Grade) -> bool:
    function_ok = row.function == "-" or grade.function == row.function
    return grade.verdict == row.verdict and set(grade.diagnosis) == row.diagnosis and function_ok


def _uses_numba(row: Row) -> bool:
    """Whether `submit` grades the file in a sandbox forked from a Numba template."""
    if row.exercise != "-":
        return False
    try:
        return find_function(CORPUS / f"{row.file}.py").hints.uses_numba
    except SubmissionError:
        return False


def _grade(row: Row, data_dir: Path) -> Grade:
    path = CORPUS / f"{row.file}.py"
    if row.exercise == "-":
        return grade_submission(path, limits=LIMITS, seed=SEED)
    from engine.commands.exercises import find_exercise

    _, item = find_exercise(row.exercise, data_dir)
    return item.grade_source(path.read_text(encoding="utf-8"), path, limits=LIMITS, seed=SEED)


@pytest.fixture(scope="module")
def grades(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Grade]:
    data_dir = tmp_path_factory.mktemp("store")  # the built-in sets only
    numba = [row for row in ROWS if _uses_numba(row)]
    waiting = collections.deque(row for row in ROWS if row not in numba)

    def grade_waiting() -> dict[str, Grade]:
        graded = {}
        while True:
            try:
                row = waiting.popleft()  # atomic: the two threads share the queue
            except IndexError:
                return graded
            graded[row.file] = _grade(row, data_dir)

    # Two grading threads. This one grades the Numba files first, one after another, so that
    # they share its template that has started Numba (see attention_ref.sandbox.numba_start).
    with ThreadPoolExecutor(max_workers=1) as pool:
        other = pool.submit(grade_waiting)
        graded = {row.file: _grade(row, data_dir) for row in numba}
        graded |= grade_waiting()
        graded |= other.result()
    for table in TABLES:
        rows = [row for row in ROWS if row.table == table.name]
        agreeing = sum(_agrees(row, graded[row.file]) for row in rows)
        agreement = f"agrees with the grader on {agreeing} of {len(rows)} files (seed {SEED})"
        announce(request.config, f"submit corpus {table.name}: {agreement}")
    return graded


def test_the_corpus_covers_every_file_and_enough_styles() -> None:
    assert sorted(row.file for row in ROWS) == sorted(p.stem for p in CORPUS.glob("*.py"))
    assert len(ROWS) >= 30


# Rows whose verdict holds where torch is not installed (their files import it).
WITHOUT_TORCH = {"leftover_torch_import"}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.file)
def test_submit_agrees_with_a_careful_grader(row: Row, grades: dict[str, Grade]) -> None:
    if row.file in WITHOUT_TORCH and importlib.util.find_spec("torch") is not None:
        # The table describes a machine without torch (CI's: torch is an optional extra).
        pytest.skip("torch is installed here, so the leftover `import torch` succeeds")
    grade = grades[row.file]
    got = (grade.verdict, sorted(grade.diagnosis), grade.function)
    failing = [c.message for c in grade.cases if not c.passed][:2]
    replay = f"ATTNQUIZ_CORPUS_SEED={SEED}"
    assert grade.verdict == row.verdict, (row.why, got, grade.message, failing, replay)
    assert set(grade.diagnosis) == row.diagnosis, (row.why, got, failing, replay)
    if row.function != "-":
        assert grade.function == row.function, (row.why, got, replay)
    assert grade.passed == (row.verdict == "pass")
