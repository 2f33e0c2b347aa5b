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

from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.errors import BankError
from engine.verdict import Verdict

CASES = Path(__file__).parent / "cases"
VERDICTS = ("correct", "wrong", "unreadable")
REQUIRED_AGREEMENT = 0.98
SET_15_CORPUS = sorted(CASES.glob("answers_*.tsv"))
PEER_TABLES = sorted(CASES.glob("peer_*.tsv"))


@dataclass(frozen=True)
class Row:
    where: str
    target: str  # an item id, or the expected expression of a peer row
    answer: str
    verdict: str
    fragment: str | None


def read_rows(path: Path) -> list[Row]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        target, answer, verdict, *rest = line.split("\t")
        assert verdict in VERDICTS, f"{path.name}:{number}: verdict {verdict!r}"
        fragment = rest[0] if rest and rest[0] else None
        rows.append(Row(f"{path.name}:{number}", target, answer, verdict, fragment))
    return rows


def outcome(verdict: Verdict) -> str:
    return "correct" if verdict.correct else "wrong" if verdict.valid else "unreadable"


def agrees(row: Row, verdict: Verdict | BankError) -> bool:
    if isinstance(verdict, BankError):  # the expected expression itself could not be read
        return False
    if outcome(verdict) != row.verdict:
        return False
    return row.fragment is None or row.fragment.lower() in verdict.feedback.lower()


def report(name: str, judged: list[tuple[Row, Verdict | BankError]]) -> float:
    misjudged = [(row, v) for row, v in judged if not agrees(row, v)]
    agreement = 1 - len(misjudged) / len(judged)
    print(f"\n{name}: agreement {agreement:.1%} ({len(judged) - len(misjudged)}/{len(judged)})")
    for row, verdict in misjudged:
        if isinstance(verdict, BankError):
            print(f"  {row.where}: the expected {row.target!r} cannot be read: {verdict}")
            continue
        print(
            f"  {row.where}: {row.target} | {row.answer!r} expected {row.verdict}"
            f"{' (' + row.fragment + ')' if row.fragment else ''}, got {outcome(verdict)}: "
            f"{verdict.feedback}"
        )
    return agreement


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
