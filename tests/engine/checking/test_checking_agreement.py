"""How often the checker agrees with a fair examiner, over corpora of natural answers.

`cases/answers_*.tsv` hold answers to the typed items of set 15 as learners type them (Unicode,
LaTeX, NumPy spellings, equations with a left side, chains, units, annotations, rounding), each
with the verdict a careful human grader gives: `correct`, `wrong` (readable, not right) or
`unreadable` (not graded: the learner is asked to type again). Every answer goes through the
item's own `grade`, exactly as a session grades it. `cases/peer_*.tsv` are tables in the spirit
of the equivalence suites of STACK, PrairieLearn and the MITx grading library: pairs of scalar
expressions (the expected one first), equivalent, near misses or unreadable.

Each corpus is one parametrized case that prints its agreement and the answers it misjudged,
and holds the checker to 98%. Run
`pytest -s -q -n0 tests/engine/checking/test_checking_agreement.py` to see the figures (`-n0`:
in one process, since the workers of pytest-xdist keep what a test prints).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.errors import BankError
from engine.verdict import Verdict
from tests.agreement import REQUIRED_AGREEMENT, Row, agrees, read_rows, report

CASES = Path(__file__).parent / "cases"
SET_15_CORPUS = sorted(CASES.glob("answers_*.tsv"))
PEER_TABLES = sorted(CASES.glob("peer_*.tsv"))


@pytest.fixture(scope="module")
def set_15(tmp_path_factory: pytest.TempPathFactory) -> QuestionSet:
    return open_set("15", tmp_path_factory.mktemp("store"))


@pytest.mark.parametrize(
    "corpus",
    # set 15's corpus is hundreds of answers graded by SymPy: seconds
    [
        pytest.param("set 15 answers", marks=pytest.mark.slow),
        *(path.stem for path in PEER_TABLES),
    ],
)
def test_the_checker_agrees_with_a_fair_examiner(set_15: QuestionSet, corpus: str) -> None:
    judged: list[tuple[Row, Verdict | BankError]] = []
    if corpus == "set 15 answers":
        for path in SET_15_CORPUS:
            for row in read_rows(path):
                item = set_15.item(row.target)
                assert item is not None, f"{row.where}: set 15 has no item {row.target!r}"
                judged.append((row, item.grade(row.answer)))
    else:
        from engine.checking import check_expression

        for row in read_rows(CASES / f"{corpus}.tsv"):
            try:
                judged.append((row, check_expression(row.answer, row.target)))
            except BankError as error:
                judged.append((row, error))
    if corpus == "set 15 answers":  # each table's own figure too: a held-out batch is read alone
        for path in SET_15_CORPUS:
            own = [(row, v) for row, v in judged if row.where.startswith(f"{path.name}:")]
            good = sum(agrees(row, v) for row, v in own)
            print(f"  {path.name}: {good / len(own):.1%} ({good}/{len(own)})")
    assert report(corpus, judged) >= REQUIRED_AGREEMENT


def test_the_corpus_covers_every_typed_item_of_set_15_both_ways(set_15: QuestionSet) -> None:
    rows = [row for path in SET_15_CORPUS for row in read_rows(path)]
    assert len(rows) >= 600
    answers = [(row.target, row.answer) for row in rows]
    assert len(set(answers)) == len(answers), "an answer is listed twice for one item"
    typed = [item.id for item in set_15.items if not item.self_rated and item.kind != "choice"]
    typed = [i for i in typed if set_15.item(i).kind != "exercise"]  # type: ignore[union-attr]
    for item_id in typed:
        verdicts = {row.verdict for row in rows if row.target == item_id}
        assert {"correct", "wrong"} <= verdicts, item_id
