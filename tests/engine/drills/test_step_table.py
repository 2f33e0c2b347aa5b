"""Step lines of every drill of set 15, graded as `attnquiz check 15 DRILL --step N` grades them.

Every `cases/steps-15*.tsv` (`steps-15.tsv` and the held-out tables written blind beside it) holds
lines written as learners and the seeds write them (Σ_a, Σ_i, sum_j, `\\sum_{i=1}^{d_k}`,
equations with a left side, chains), each with the verdict a fair examiner gives and, for a wrong
line, the kind of mistake. Every line is judged from the state after the
steps before it (`chain.judge_at`), the drills' own path, with each check sent as the drills send
it to the checking worker and answered by the worker's own request handler, here in this process:
the same requests, replies and verdicts, without the worker's process and time bound (which
tests/engine/checking/test_worker_*.py test), so that no line's verdict depends on how busy the
machine is. Each table must agree with the examiner on at least 97% of the lines, and no wrong
line of the kinds the checker once accepted (a squared mean, a mean taken outside E, a sum of
means, a sign error, a variance rule that does not hold, a restatement) may be accepted at all.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.checking.worker.main import answer_request
from engine.drills.chain import judge_at
from engine.drills.loader import load_drill_file
from engine.drills.model import Drill

ROOT = Path(__file__).resolve().parents[3]
TABLES = sorted((Path(__file__).parent / "cases").glob("steps-15*.tsv"))
AGREEMENT = 0.97
# Wrong steps that only agree with the right one in value under N(0, 1), or restate the line
# before: the checker must never accept one of these.
NEVER_ACCEPTED = {"squared", "moment-outside-E", "sum-of-means", "sign", "wrong-variance",
                  "restatement", "bounds"}  # fmt: skip


@dataclass(frozen=True)
class Row:
    drill: str
    step: int
    right: bool
    kind: str
    line: str
    table: str  # file name of the table
    number: int  # line number in the table

    @property
    def id(self) -> str:
        return f"{self.table}:{self.drill}:{self.step}:{self.line[:40]}"

    @property
    def key(self) -> tuple[str, int]:
        return self.table, self.number


def read_table(table: Path) -> list[Row]:
    rows = []
    for number, text in enumerate(table.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip() or text.startswith("#"):
            continue
        drill, step, verdict, kind, line = text.split("\t")
        assert verdict in {"right", "wrong"}, f"{table.name}:{number}: verdict {verdict!r}"
        rows.append(Row(drill, int(step), verdict == "right", kind, line, table.name, number))
    return rows


TABLE_ROWS = {table.name: read_table(table) for table in TABLES}
ROWS = [row for rows in TABLE_ROWS.values() for row in rows]


def shipped() -> dict[str, Drill]:
    loaded = load_drill_file(ROOT / "drills" / "15.yaml", "drills/15.yaml", set_name="15")
    assert loaded.problems == []
    return {drill.id: drill for drill in loaded.drills}


class HandlerInThisProcess:
    """A checker whose requests the checking worker's request handler answers in this process,
    as the worker would: JSON in and out, warnings ignored. A line the handler fails on (an
    internal error, not a verdict) fails the test."""

    def ask(self, request: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reply = answer_request(json.dumps(request).encode("ascii"))
        assert "error" not in reply, f"the checker failed on {request}: {reply}"
        loaded: dict[str, Any] = json.loads(json.dumps(reply, ensure_ascii=True, allow_nan=True))
        return loaded


@pytest.fixture(scope="module")
def judged() -> dict[tuple[str, int], tuple[bool, str]]:
    """Every row's verdict (correct?, message), keyed by its table and line."""
    drills = shipped()
    checker: Any = HandlerInThisProcess()
    verdicts = {}
    for row in ROWS:
        verdict = judge_at(checker, drills[row.drill], row.step - 1, row.line).verdict
        verdicts[row.key] = (verdict.correct, verdict.message)
    return verdicts


@pytest.mark.parametrize("table", TABLE_ROWS)
def test_the_table_covers_every_checked_step_of_every_drill_both_ways(table: str) -> None:
    rows = TABLE_ROWS[table]
    assert len(rows) >= 300
    lines = [(row.drill, row.step, row.line) for row in rows]
    assert len(lines) == len(set(lines)), "a line is listed twice for the same step"
    for drill in shipped().values():
        for number, step in enumerate(drill.steps, start=1):
            if not step.checked:
                continue
            verdicts = {row.right for row in rows if (row.drill, row.step) == (drill.id, number)}
            assert verdicts == {True, False}, f"{drill.id} step {number}"


@pytest.mark.slow  # 300+ lines a table judged by SymPy: seconds
@pytest.mark.parametrize("table", TABLE_ROWS)
def test_the_checker_agrees_with_the_examiner_on_the_step_table(
    table: str,
    judged: dict[tuple[str, int], tuple[bool, str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = TABLE_ROWS[table]
    disagreements = [
        f"{table}:{row.number}: {row.drill} step {row.step} {row.line!r}: examiner "
        f"{'right' if row.right else 'wrong'}, checker: {judged[row.key][1]}"
        for row in rows
        if judged[row.key][0] != row.right
    ]
    agreement = 1 - len(disagreements) / len(rows)
    with capsys.disabled():
        print(
            f"\nstep table {table}: agreement {agreement:.1%} "
            f"({len(rows) - len(disagreements)}/{len(rows)} lines)"
        )
    assert agreement >= AGREEMENT, "\n".join(disagreements)


@pytest.mark.slow  # shares the judged table above
@pytest.mark.parametrize(
    "row", [row for row in ROWS if row.kind in NEVER_ACCEPTED], ids=lambda row: row.id
)
def test_no_wrong_step_of_a_known_kind_is_accepted(
    row: Row, judged: dict[tuple[str, int], tuple[bool, str]]
) -> None:
    correct, message = judged[row.key]
    assert not correct, f"{row.kind}: {row.line!r} was accepted ({message})"
