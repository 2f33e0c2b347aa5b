"""The file of a timed memorization drill, `drills/<set>-timed.yaml`, and how it is loaded.

A timed drill has parts, each with one or more questions; a question is graded by a bank item, by
the derivation-step checker (`step`) or by the same checking as `attnquiz submit` (`code`).
Loading checks the file against its set's bank and reports every problem as `PATH:LINE: message`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
)

from engine.bank.file_header import FileHeader, StrictModel
from engine.bank.model import QuestionSet
from engine.bank.yaml_source import YamlDocument
from engine.cards.base import ItemId, Text
from engine.checking.reading.safe_ast import within_float_range
from engine.drills.clocked.file import ClockedFile, loaded
from engine.drills.model import AssumptionsSpec, Mistake

DEFAULT_DRILL = "memorize"
Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]
# A number in it beyond float range is refused as the file is read, not after an answer.
Formula = Annotated[
    str, StringConstraints(min_length=1, max_length=400), AfterValidator(within_float_range)
]


class StepSpec(StrictModel):
    """A line checked by `check_step`: it follows `previous` and reaches `expected`.

    `must_use` names symbols the line has to mention, so that, for the max trick, the plain
    softmax (equal in value) does not pass for the stable form. `mistakes` pair a known wrong
    line with what to tell the learner, as in a derivation drill's step.
    """

    previous: Formula | None = None
    expected: Formula
    must_use: tuple[str, ...] = ()
    mistakes: list[Mistake] = Field(default_factory=list)


class CodeSpec(StrictModel):
    """A function graded like `attnquiz submit --no-time`; `function` as `--func`."""

    function: str | None = None


class TimedQuestion(StrictModel):
    prompt: Text | None = None
    item: ItemId | None = None
    step: StepSpec | None = None
    code: CodeSpec | None = None
    # The model answer, shown after the run; an item's own answer when omitted.
    answer: Text | None = None


class TimedPart(StrictModel):
    id: Name
    title: Annotated[str, StringConstraints(min_length=1, max_length=80)]
    questions: tuple[TimedQuestion, ...] = Field(min_length=1)
    assumptions: AssumptionsSpec = Field(default_factory=AssumptionsSpec)


class TimedSection(StrictModel):
    name: Name = DEFAULT_DRILL
    limit_seconds: int = Field(default=300, ge=10, le=3600)
    parts: tuple[TimedPart, ...] = Field(min_length=1)


class TimedDrillFile(FileHeader):
    timed: TimedSection


@dataclass(frozen=True)
class TimedDrill:
    """A loaded timed drill, its questions checked against the set's bank."""

    set_name: str
    name: str
    title: str
    limit_seconds: int
    parts: tuple[TimedPart, ...]
    source: str
    # The line of every question in its file, by part then question (for lint's messages).
    lines: tuple[tuple[int, ...], ...] = ()


TIMED_FILE = ClockedFile("timed-drill", TimedDrillFile)


def timed_drill_file(set_name: str, store: Path) -> tuple[Path, str] | None:
    """`<store>/drills/<set>-timed.yaml` (the learner's own) before the built-in one."""
    return TIMED_FILE.find(set_name, store)


def read_timed_drill(
    path: Path, shown: str, qset: QuestionSet | None, set_name: str | None
) -> tuple[TimedDrill | None, list[str]]:
    """The drill and every problem of its file; `qset` (when known) checks the items it names."""

    def build(doc: YamlDocument, parsed: TimedDrillFile) -> TimedDrill:
        seen: set[str] = set()
        for p, part in enumerate(parsed.timed.parts):
            # A run keeps one record per part id (and the best times by it): two parts of one
            # id would overwrite each other's record.
            if part.id in seen:
                doc.problem(
                    doc.line_of(("timed", "parts", p, "id")), f"duplicate part id {part.id!r}"
                )
            seen.add(part.id)
            for q, question in enumerate(part.questions):
                _check_question(doc, ("timed", "parts", p, "questions", q), question, qset)
        return TimedDrill(
            str(parsed.set),
            parsed.timed.name,
            parsed.title,
            parsed.timed.limit_seconds,
            parsed.timed.parts,
            shown,
            tuple(
                tuple(
                    doc.line_of(("timed", "parts", p, "questions", q))
                    for q in range(len(part.questions))
                )
                for p, part in enumerate(parsed.timed.parts)
            ),
        )

    return TIMED_FILE.read(path, shown, set_name, build)


def _check_question(
    doc: YamlDocument,
    loc: tuple[str | int, ...],
    question: TimedQuestion,
    qset: QuestionSet | None,
) -> None:
    """Report in `doc` what is wrong with one question: not exactly one way to grade it, an
    item the set does not have or that is not typed, a step or code without prompt or answer."""
    graders = [g for g in (question.item, question.step, question.code) if g is not None]
    if len(graders) != 1:
        doc.problem(doc.line_of(loc), "a question needs exactly one of item, step, code")
    elif question.item is not None:
        item = None if qset is None else qset.item(question.item)
        if qset is not None and item is None:
            doc.problem(doc.line_of((*loc, "item")), f"no item {question.item!r} in set")
        elif item is not None and (item.self_rated or item.kind == "choice"):
            doc.problem(doc.line_of((*loc, "item")), f"{item.id!r} is not a typed item")
    elif question.answer is None or question.prompt is None:
        doc.problem(doc.line_of(loc), "a step or code question needs a prompt and answer")


def load_timed_drill(path: Path, shown: str, qset: QuestionSet) -> TimedDrill:
    """The drill for `qset`'s learner; BankError listing every problem of the file."""
    return loaded(read_timed_drill(path, shown, qset, qset.name))
