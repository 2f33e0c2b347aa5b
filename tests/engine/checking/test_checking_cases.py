"""Table-driven grading of set 15: every row of `cases/*.yaml` graded as a session grades it.

Each row names an item of `quizzes/15.yaml`, an answer and the expected verdict (`correct`,
`wrong` or `unreadable`), optionally with a fragment the feedback must contain. The bank is
loaded with the project's own loader and every answer goes through the item's `grade`, so the
table checks the whole path a learner's answer takes: aliases, domains and known mistakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet

CASES = Path(__file__).parent / "cases"
REQUIRED_ITEMS = {
    "attention-equation", "mean-dot", "var-dot", "std-dot", "var-scaled", "std-512",
    "shape-scores", "shape-output", "softmax-grad", "flops-total", "intensity",
}  # fmt: skip
VERDICTS = {"correct", "wrong", "unreadable"}


@dataclass(frozen=True)
class Case:
    item: str
    answer: str
    verdict: str
    fragment: str | None
    source: str

    @property
    def id(self) -> str:
        shown = self.answer if len(self.answer) <= 50 else self.answer[:47] + "..."
        return f"{self.item}|{self.verdict}|{shown}"


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CASES.glob("*.yaml")):
        if path.name == "vectors.yaml":
            continue
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        for item, rows in table.items():
            for row in rows:
                answer, verdict, *rest = row
                fragment = rest[0] if rest else None
                cases.append(Case(item, str(answer), verdict, fragment, path.name))
    return cases


ALL_CASES = load_cases()


@pytest.fixture(scope="module")
def set_15(tmp_path_factory: pytest.TempPathFactory) -> QuestionSet:
    return open_set("15", tmp_path_factory.mktemp("store"))


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_answer_is_graded_as_a_teacher_would(set_15: QuestionSet, case: Case) -> None:
    item = set_15.item(case.item)
    assert item is not None, f"{case.source}: no item {case.item!r} in set 15"
    verdict = item.grade(case.answer)
    got = "correct" if verdict.correct else "wrong" if verdict.valid else "unreadable"
    assert got == case.verdict, f"{case.answer!r} judged {got}: {verdict}"
    if case.fragment is not None:
        assert case.fragment.lower() in verdict.feedback.lower(), verdict
    if got == "correct":
        assert verdict.score == 1.0
    if got == "unreadable":
        assert verdict.feedback.startswith("could not read this"), verdict


def test_the_table_is_well_formed() -> None:
    assert all(case.verdict in VERDICTS for case in ALL_CASES)
    answers = [(case.item, case.answer) for case in ALL_CASES]
    duplicates = {a for a in answers if answers.count(a) > 1}
    assert not duplicates


def test_the_table_covers_every_required_item_both_ways() -> None:
    assert len(ALL_CASES) >= 300
    for item in REQUIRED_ITEMS:
        verdicts = {case.verdict for case in ALL_CASES if case.item == item}
        assert {"correct", "wrong"} <= verdicts, item


def test_every_listed_mistake_of_a_required_item_has_a_case(set_15: QuestionSet) -> None:
    fragments = {
        (case.item, case.fragment.lower()) for case in ALL_CASES if case.fragment is not None
    }
    for item_id in REQUIRED_ITEMS:
        item = set_15.item(item_id)
        assert item is not None
        for mistake in getattr(item, "mistakes", ()):
            message = mistake.message.lower()
            assert any(i == item_id and f in message for i, f in fragments), (item_id, mistake)
