"""The timed memorization drill: the five essentials of attention from memory, against a clock.

`drills/<set>-timed.yaml` says what is asked (parts, each with one or more questions, each graded
by a bank item, the derivation-step checker or the `submit` checking). `run_drill` is the pure
core: the clock, the learner's replies, the grading and the store are passed in, so tests drive
it with a fake clock. `run_timed` is the shell used by `attnquiz drill SET --timed`.
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)

from engine.bank.model import QuestionSet, SetName
from engine.cards.base import ItemId, Text
from engine.drills.model import AssumptionsSpec
from engine.errors import BankError, UsageError

DEFAULT_DRILL = "memorize"
Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]
Formula = Annotated[str, StringConstraints(min_length=1, max_length=400)]


# -- the drill file ------------------------------------------------------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepSpec(_Strict):
    """A line checked by `check_step`: it follows `previous` and reaches `expected`.

    `must_use` names symbols the line has to mention, so that, for the max trick, the plain
    softmax (equal in value) does not pass for the stable form.
    """

    previous: Formula | None = None
    expected: Formula
    must_use: tuple[str, ...] = ()


class CodeSpec(_Strict):
    """A function graded like `attnquiz submit --no-time`; `function` as `--func`."""

    function: str | None = None


class TimedQuestion(_Strict):
    prompt: Text | None = None
    item: ItemId | None = None
    step: StepSpec | None = None
    code: CodeSpec | None = None
    # The model answer, shown after the run; an item's own answer when omitted.
    answer: Text | None = None

    @property
    def grader(self) -> Literal["item", "step", "code"]:
        if self.item is not None:
            return "item"
        return "step" if self.step is not None else "code"


class TimedPart(_Strict):
    id: Name
    title: Annotated[str, StringConstraints(min_length=1, max_length=80)]
    questions: tuple[TimedQuestion, ...] = Field(min_length=1)
    assumptions: AssumptionsSpec = Field(default_factory=AssumptionsSpec)


class TimedSection(_Strict):
    name: Name = DEFAULT_DRILL
    limit_seconds: int = Field(default=300, ge=10, le=3600)
    parts: tuple[TimedPart, ...] = Field(min_length=1)


class TimedDrillFile(_Strict):
    format_version: Literal[1]
    set: SetName
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    description: str | None = None
    timed: TimedSection

    @field_validator("set", mode="before")
    @classmethod
    def _set_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@dataclass(frozen=True)
class TimedDrill:
    """A loaded timed drill, its questions checked against the set's bank."""

    set_name: str
    name: str
    title: str
    limit_seconds: int
    parts: tuple[TimedPart, ...]
    source: str


def timed_drill_file(set_name: str, store: Path) -> tuple[Path, str] | None:
    """`<store>/drills/<set>-timed.yaml` (the learner's own) before the built-in one."""
    from engine.paths import builtin_dir

    for root, label in (
        (store / "drills", str(store / "drills")),
        (builtin_dir("drills"), "drills"),
    ):
        for suffix in (".yaml", ".yml"):
            path = root / f"{set_name}-timed{suffix}"
            if path.is_file():
                return path, f"{label}/{path.name}"
    return None


def load_timed_drill(path: Path, shown: str, qset: QuestionSet) -> TimedDrill:
    from engine.bank.yaml_source import read_yaml

    doc = read_yaml(path, shown)
    if doc.problems:
        raise BankError(doc.problems)
    try:
        parsed = TimedDrillFile.model_validate(doc.value)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"]) or "file"
            doc.problem(doc.line_of(tuple(error["loc"])), f"{where}: {error['msg']}")
        raise BankError(doc.problems) from None
    for p, part in enumerate(parsed.timed.parts):
        for q, question in enumerate(part.questions):
            loc: tuple[str | int, ...] = ("timed", "parts", p, "questions", q)
            graders = [g for g in (question.item, question.step, question.code) if g is not None]
            if len(graders) != 1:
                doc.problem(doc.line_of(loc), "a question needs exactly one of item, step, code")
            elif question.item is not None:
                item = qset.item(question.item)
                if item is None:
                    doc.problem(doc.line_of((*loc, "item")), f"no item {question.item!r} in set")
                elif item.self_rated or item.kind == "choice":
                    doc.problem(doc.line_of((*loc, "item")), f"{item.id!r} is not a typed item")
            elif question.answer is None or question.prompt is None:
                doc.problem(doc.line_of(loc), "a step or code question needs a prompt and answer")
    if str(parsed.set) != qset.name:
        doc.problem(doc.line_of(("set",)), f"the file is for set {parsed.set}, not {qset.name}")
    if doc.problems:
        raise BankError(doc.problems)
    return TimedDrill(
        qset.name,
        parsed.timed.name,
        parsed.title,
        parsed.timed.limit_seconds,
        parsed.timed.parts,
        shown,
    )


# -- the result of one run -----------------------------------------------------------------------
class PartStatus(enum.StrEnum):
    RIGHT = "right"
    SKIPPED = "skipped"
    TIMED_OUT = "timed_out"  # the clock ran out while on this part
    STOPPED = "stopped"  # the learner ended the drill (empty line, :quit, Ctrl-C)
    NOT_REACHED = "not_reached"


@dataclass
class PartResult:
    part_id: str
    title: str
    status: PartStatus = PartStatus.NOT_REACHED
    attempts: int = 0
    seconds: float | None = None  # from the part's first question to its end
    feedback: str = ""  # what the last wrong attempt was told
    diagnosis: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.status is PartStatus.RIGHT


@dataclass
class DrillRun:
    """One attempt at a timed drill, serialisable with `to_dict`."""

    set_name: str
    drill: str
    started: datetime
    limit_seconds: int
    parts: list[PartResult]
    total_seconds: float = 0.0
    interrupted: bool = False
    run_id: int | None = None

    @property
    def all_right(self) -> bool:
        return all(part.right for part in self.parts)

    @property
    def within_limit(self) -> bool:
        return self.all_right and self.total_seconds <= self.limit_seconds

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["started"] = self.started.isoformat()
        data["parts"] = [{**asdict(p), "status": str(p.status)} for p in self.parts]
        data["within_limit"] = self.within_limit
        return data


# -- the pure core -------------------------------------------------------------------------------
class Control(enum.Enum):
    SKIP = "skip"  # give up on this part, go on to the next
    STOP = "stop"  # end the drill now


Reply = str | Control


@dataclass(frozen=True)
class Prompt:
    part: TimedPart
    part_number: int
    parts_total: int
    question: TimedQuestion
    text: str
    attempt: int
    remaining_seconds: float


@dataclass(frozen=True)
class QuestionCheck:
    correct: bool
    feedback: str = ""
    interpreted_as: str = ""
    diagnosis: tuple[str, ...] = ()


class Checker(Protocol):
    def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck: ...


class TimedFrontend(Protocol):
    def ask(self, prompt: Prompt) -> Reply: ...
    def show_check(self, prompt: Prompt, check: QuestionCheck) -> None: ...
    def show_time_up(self) -> None: ...


class _TimeUp(Exception):
    pass


def run_drill(
    drill: TimedDrill,
    frontend: TimedFrontend,
    checker: Checker,
    clock: Callable[[], datetime],
    *,
    prompt_of: Callable[[TimedQuestion], str],
    save: Callable[[DrillRun], None] = lambda run: None,
) -> DrillRun:
    """Ask every part in order until it is right, skipped, or the time is up.

    A wrong answer is asked again while time remains. An answer that arrives after the limit is
    not graded. `save` is called after every part (and at the start and end), so an interrupted
    run keeps what was done. Ctrl-C ends the run as stopped; the caller sees `interrupted`.
    """
    started = clock()
    run = DrillRun(
        drill.set_name,
        drill.name,
        started,
        drill.limit_seconds,
        [PartResult(part.id, part.title) for part in drill.parts],
    )

    def elapsed() -> float:
        return (clock() - started).total_seconds()

    save(run)
    current: PartResult | None = None
    part_started = 0.0
    try:
        for number, (part, result) in enumerate(zip(drill.parts, run.parts, strict=True), 1):
            current, part_started = result, elapsed()
            result.status = _ask_part(
                part, number, drill, result, frontend, checker, elapsed, prompt_of
            )
            result.seconds = elapsed() - part_started
            current = None
            if result.status is PartStatus.STOPPED:
                break
            save(run)
    except _TimeUp:
        frontend.show_time_up()
        if current is not None:
            current.status, current.seconds = PartStatus.TIMED_OUT, elapsed() - part_started
    except KeyboardInterrupt:
        run.interrupted = True
        if current is not None:
            current.status, current.seconds = PartStatus.STOPPED, elapsed() - part_started
    run.total_seconds = elapsed()
    save(run)
    return run


def _ask_part(
    part: TimedPart,
    number: int,
    drill: TimedDrill,
    result: PartResult,
    frontend: TimedFrontend,
    checker: Checker,
    elapsed: Callable[[], float],
    prompt_of: Callable[[TimedQuestion], str],
) -> PartStatus:
    for question in part.questions:
        attempt = 1
        while True:
            remaining = drill.limit_seconds - elapsed()
            if remaining <= 0:
                raise _TimeUp
            prompt = Prompt(
                part, number, len(drill.parts), question, prompt_of(question), attempt, remaining
            )
            reply = frontend.ask(prompt)
            if elapsed() > drill.limit_seconds:
                raise _TimeUp
            if reply is Control.STOP:
                return PartStatus.STOPPED
            if reply is Control.SKIP:
                return PartStatus.SKIPPED
            assert isinstance(reply, str)
            result.attempts += 1
            check = checker.check(part, question, reply)
            frontend.show_check(prompt, check)
            if check.correct:
                break
            result.feedback, result.diagnosis = check.feedback, list(check.diagnosis)
            attempt += 1
    result.feedback, result.diagnosis = "", []
    return PartStatus.RIGHT


# -- grading with the real checkers --------------------------------------------------------------
class BankChecker:
    """Grades items in the bounded checking worker, steps with `check_step`, code in the sandbox."""

    def __init__(self, qset: QuestionSet) -> None:
        self.qset = qset

    def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck:
        if question.item is not None:
            return self._item(question.item, answer)
        if question.step is not None:
            return _step(part.assumptions, question.step, answer)
        assert question.code is not None
        return _code(question.code, answer)

    def _item(self, item_id: str, answer: str) -> QuestionCheck:
        from engine.errors import AnswerError

        item = self.qset.item(item_id)
        assert item is not None, "checked when the drill was loaded"
        try:
            verdict = item.grade(answer)
        except AnswerError as exc:
            return QuestionCheck(False, feedback=str(exc))
        return QuestionCheck(verdict.correct, verdict.feedback, verdict.interpreted_as)


def _step(assumptions: AssumptionsSpec, spec: StepSpec, answer: str) -> QuestionCheck:
    import re

    from engine.checking.derivation import check_step

    verdict = check_step(
        spec.previous,
        answer,
        expected=spec.expected,
        assumptions=assumptions.for_checker(),
    )
    if verdict.correct:
        missing = [
            name
            for name in spec.must_use
            if not re.search(rf"(?<![\w]){re.escape(name)}(?!\w)", answer)
        ]
        if missing:
            return QuestionCheck(
                False,
                f"true, but write the form that uses {', '.join(missing)}",
                verdict.interpreted_as,
            )
    return QuestionCheck(verdict.correct, verdict.message, verdict.interpreted_as)


def _code(spec: CodeSpec, code: str) -> QuestionCheck:
    import tempfile

    from attention_ref.diagnosis import EXPLANATIONS
    from attention_ref.grading import grade_submission
    from attention_ref.sandbox import Limits

    with tempfile.TemporaryDirectory(prefix="attnquiz-timed-") as folder:
        path = Path(folder) / "attention.py"
        # The drill asks for the function, not the import: give it numpy as np.
        path.write_text(f"import numpy as np\n\n{code}\n", encoding="utf-8")
        grade = grade_submission(path, spec.function, limits=Limits())
    if grade.passed:
        return QuestionCheck(True, f"{grade.function} passes every case")
    failing = next((case.message for case in grade.cases if not case.passed), "")
    words = [grade.message or failing or grade.verdict]
    words += [f"{name}: {EXPLANATIONS.get(name, name)}" for name in grade.diagnosis]
    return QuestionCheck(False, "; ".join(w for w in words if w), diagnosis=tuple(grade.diagnosis))


def question_text(qset: QuestionSet) -> Callable[[TimedQuestion], str]:
    def text(question: TimedQuestion) -> str:
        if question.prompt is not None:
            return question.prompt.strip()
        item = qset.item(question.item or "")
        return item.prompt.strip() if item is not None else ""

    return text


def model_answer(qset: QuestionSet, question: TimedQuestion) -> str:
    if question.answer is not None:
        return question.answer.strip()
    item = qset.item(question.item or "")
    return item.answer_text() if item is not None else ""


# -- the store -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    """This run against the earlier ones: best times before it, and the recent totals."""

    best_parts: dict[str, float]  # fastest right answer of each part in earlier runs
    best_total: float | None  # fastest earlier run with every part right within the limit
    trend: list[tuple[float, bool]]  # (total seconds, all right within the limit), oldest first


class TimedRecords:
    """The `timed_runs` and `timed_parts` tables (migration 0002_timed_drills)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def save(self, run: DrillRun) -> None:
        """Write the run as it stands, in one transaction; the first call gives it its id."""
        from engine.store.reviews import to_ms

        db = self.db
        with db:
            db.execute("BEGIN IMMEDIATE")
            if run.run_id is None:
                cursor = db.execute(
                    "INSERT INTO timed_runs (set_name, drill, started, limit_ms) "
                    "VALUES (?, ?, ?, ?)",
                    (run.set_name, run.drill, to_ms(run.started), run.limit_seconds * 1000),
                )
                run.run_id = int(cursor.lastrowid or 0)
            db.execute(
                "UPDATE timed_runs SET total_ms = ?, all_right = ?, within_limit = ?, "
                "interrupted = ? WHERE id = ?",
                (
                    round(run.total_seconds * 1000),
                    int(run.all_right),
                    int(run.within_limit),
                    int(run.interrupted),
                    run.run_id,
                ),
            )
            for position, part in enumerate(run.parts):
                db.execute(
                    "INSERT OR REPLACE INTO timed_parts (run_id, part, position, status, "
                    "attempts, duration_ms) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        part.part_id,
                        position,
                        str(part.status),
                        part.attempts,
                        None if part.seconds is None else round(part.seconds * 1000),
                    ),
                )

    def compare(self, run: DrillRun, last: int = 12) -> Comparison:
        key = (run.set_name, run.drill, run.run_id or 0)
        rows = self.db.execute(
            "SELECT p.part, min(p.duration_ms) FROM timed_parts p JOIN timed_runs r "
            "ON r.id = p.run_id WHERE r.set_name = ? AND r.drill = ? AND r.id != ? "
            "AND p.status = 'right' GROUP BY p.part",
            key,
        )
        best_parts = {part: ms / 1000 for part, ms in rows if ms is not None}
        (best_total,) = self.db.execute(
            "SELECT min(total_ms) FROM timed_runs WHERE set_name = ? AND drill = ? AND id != ? "
            "AND within_limit = 1",
            key,
        ).fetchone()
        recent = self.db.execute(
            "SELECT total_ms, within_limit FROM timed_runs WHERE set_name = ? AND drill = ? "
            "AND total_ms IS NOT NULL ORDER BY started DESC, id DESC LIMIT ?",
            (run.set_name, run.drill, last),
        ).fetchall()
        return Comparison(
            best_parts,
            None if best_total is None else best_total / 1000,
            [(ms / 1000, bool(ok)) for ms, ok in reversed(recent)],
        )


# -- the shell -----------------------------------------------------------------------------------
def run_timed(set_name: str, data_dir: Path | None) -> int:
    """`attnquiz drill SET --timed`: 0 all right within the limit, 1 otherwise, 130 on Ctrl-C."""
    import sys

    from engine.checking.bounded import close_checker, start_checker
    from engine.clock import make_clock
    from engine.commands.context import load
    from engine.drills import timed_view
    from engine.store import open_store

    start_checker()
    clock = make_clock()
    folder, qset = load(set_name, data_dir)
    found = timed_drill_file(set_name, folder)
    if found is None:
        raise UsageError(f"set {set_name} has no timed drill (drills/{set_name}-timed.yaml)")
    drill = load_timed_drill(*found, qset)
    store = open_store(folder)
    records = TimedRecords(store.db)
    frontend = timed_view.make_frontend(drill, interactive=sys.stdin.isatty())
    try:
        frontend.begin(drill)
        run = run_drill(
            drill,
            frontend,
            BankChecker(qset),
            clock,
            prompt_of=question_text(qset),
            save=records.save,
        )
        timed_view.show_results(frontend, drill, qset, run, records.compare(run))
    finally:
        store.close()
        close_checker()
    if run.interrupted:
        print("interrupted: this attempt is saved", file=sys.stderr)
        return 130
    return 0 if run.within_limit else 1
