"""A round of the rapid-fire shapes drill: questions drawn from templates, asked against a clock.

`draw_questions` turns templates into questions with fresh dimension letters or numbers from a
seeded generator (the same seed gives the same round). `run_round` is the pure core: the clock,
the replies, the grading and the store are passed in. Each question is asked once; the round
ends after the last question, when the time is up, or when the learner stops. For lint,
`rapid_drill_problems` grades seeded draws of every template with the real shape checker.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from engine.checking.worker.bounded import Checker
from engine.drills.clocked.run import (
    Clock,
    ClockedFrontend,
    Control,
    Deadline,
    DrillRun,
    PartResult,
    PartStatus,
    QuestionCheck,
    run_clocked,
)
from engine.drills.rapid.file import RapidDrill, RapidTemplate, tensor_shapes
from engine.drills.rapid.shapes import parse_shape_spec, shape_text

MAX_DRAWS = 200


@dataclass(frozen=True)
class RapidQuestion:
    template_id: str
    prompt: str
    answer: str  # the shape, e.g. "(n, m)" or "(12, 64)"
    mistakes: tuple[tuple[str, str], ...] = ()  # (wrong shape, what to tell the learner)
    explanation: str | None = None


def draw_values(
    template: RapidTemplate, names: tuple[str, ...], rng: random.Random, with_numbers: bool
) -> dict[str, str | int]:
    """A letter (distinct) or a number (in its range) for every dimension variable.

    Numbers are drawn log-uniformly, so 7 is as likely as 700, and redrawn until every dimension
    of every tensor and of the answer differs from the others: then a swapped answer is wrong.
    """
    variables = sorted(template.dims)
    if not with_numbers:
        return dict(zip(variables, rng.sample(names, len(variables)), strict=True))
    dims = [d for shape in tensor_shapes(template).values() for d in shape]
    dims += parse_shape_spec(template.answer)
    values: dict[str, str | int] = {}
    for _ in range(MAX_DRAWS):
        values = {var: _log_uniform(rng, *template.dims[var]) for var in variables}
        distinct = {d.text(values) for d in set(dims)}
        if len(distinct) == len(set(dims)) and len(set(values.values())) == len(values):
            return values
    return values  # a tiny range: a repeated number only makes two answers equally right


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    return round(math.exp(rng.uniform(math.log(low), math.log(high))))


def render(template: RapidTemplate, values: dict[str, str | int]) -> RapidQuestion:
    shapes = {name: shape_text(shape, values) for name, shape in tensor_shapes(template).items()}
    fields = {**{var: str(value) for var, value in values.items()}, **shapes}
    return RapidQuestion(
        template.id,
        template.prompt.strip().format_map(fields),
        shape_text(parse_shape_spec(template.answer), values),
        tuple(
            (shape_text(parse_shape_spec(m.answer), values), m.message.strip().format_map(fields))
            for m in template.mistakes
        ),
        template.explanation.strip().format_map(fields) if template.explanation else None,
    )


def draw_questions(drill: RapidDrill, count: int, rng: random.Random) -> list[RapidQuestion]:
    """`count` questions going through the templates in shuffled order (again when they run out),
    each with letters or, for the drill's `numbers` share, numbers."""
    section = drill.section
    order: list[RapidTemplate] = []
    while len(order) < count:
        batch = list(section.templates)
        rng.shuffle(batch)
        if order and len(batch) > 1 and batch[0] is order[-1]:
            batch.append(batch.pop(0))  # never the same template twice in a row
        order.extend(batch)
    questions = []
    for template in order[:count]:
        with_numbers = rng.random() < section.numbers
        values = draw_values(template, section.names, rng, with_numbers)
        questions.append(render(template, values))
    return questions


# -- the pure core -------------------------------------------------------------------------------
@dataclass(frozen=True)
class RapidPrompt:
    number: int
    total: int
    question: RapidQuestion
    right_so_far: int
    remaining_seconds: float


RapidFrontend = ClockedFrontend[RapidPrompt]
Grader = Callable[[RapidQuestion, str], QuestionCheck]


def run_round(
    drill: RapidDrill,
    questions: list[RapidQuestion],
    frontend: RapidFrontend,
    grade: Grader,
    clock: Clock,
    save: Callable[[DrillRun], None] = lambda run: None,
) -> DrillRun:
    """Ask each question once, in order, until the last one, the time limit or a stop (the rules
    of `run_clocked`); an answer that cannot be read is not graded, and the question is asked
    again. A question's time runs up to its graded reply, not its grading."""
    parts = [
        PartResult(f"{n:02d}-{q.template_id}", q.template_id) for n, q in enumerate(questions, 1)
    ]

    def ask_part(number: int, result: PartResult, deadline: Deadline) -> PartStatus:
        asked_at = deadline.elapsed()
        question = questions[number - 1]
        right = sum(p.right for p in parts)
        while True:
            prompt, reply = deadline.ask(
                frontend, partial(RapidPrompt, number, len(questions), question, right)
            )
            result.seconds = deadline.elapsed() - asked_at
            if reply is Control.STOP:
                return PartStatus.STOPPED
            if reply is Control.SKIP:
                return PartStatus.SKIPPED
            assert isinstance(reply, str)
            check = grade(question, reply)
            frontend.show_check(prompt, check)
            if check.valid:  # an answer that cannot be read is not graded: asked again
                break
        result.attempts = 1
        result.feedback = "" if check.correct else check.feedback
        return PartStatus.RIGHT if check.correct else PartStatus.WRONG

    return run_clocked(
        drill.set_name,
        drill.name,
        drill.section.limit_seconds,
        parts,
        ask_part,
        clock,
        show_time_up=frontend.show_time_up,
        save=save,
    )


def shape_grader(checker: Checker) -> Grader:
    """Grade with the shape checker, by `checker` (in its worker), as typed shape cards are."""
    from engine.cards.typed import Mistake, ShapeItem
    from engine.drills.clocked.check import check_card

    def grade(question: RapidQuestion, answer: str) -> QuestionCheck:
        item = ShapeItem(
            id=f"rapid-{question.template_id}",
            kind="shape",
            prompt=question.prompt,
            answer=question.answer,
            mistakes=tuple(Mistake(answer=a, message=m) for a, m in question.mistakes),
        )
        return check_card(checker, item, answer)

    return grade


# -- lint: seeded draws of every template, graded by the shape checker ---------------------------
DRAWS = 3


def rapid_drill_problems(drill: RapidDrill, path: str, checker: Checker) -> list[str]:
    """Every `PATH:LINE: message` the checker finds (empty when the drill is sound)."""
    section = drill.section
    problems = []
    for name in section.names:
        if not letter_reads_as_itself(name):
            problems.append(
                f"{path}:{drill.names_line}: the dimension letter {name!r} does not read back "
                f"as itself in ({name}, q), {name} x q or ({name}*q,); use another letter"
            )
    grade = shape_grader(checker)
    lines = drill.lines or tuple(1 for _ in section.templates)
    for line, template in zip(lines, section.templates, strict=True):
        rng = random.Random(template.id)
        found: set[str] = set()
        for draw in range(2 * DRAWS):
            values = draw_values(template, section.names, rng, with_numbers=draw % 2 == 1)
            question = render(template, values)
            check = grade(question, question.answer)
            if not check.correct:
                found.add(f"the answer {question.answer} does not check: {check.feedback}")
            for wrong, _ in question.mistakes:
                if wrong != question.answer and grade(question, wrong).correct:
                    found.add(f"the mistake {wrong} grades as right (answer {question.answer})")
        problems.extend(f"{path}:{line}: template {template.id!r}: {p}" for p in sorted(found))
    return problems


def letter_reads_as_itself(name: str) -> bool:
    """Whether the shape checker reads `name` as that letter alone, beside another dimension in
    either spelling, and inside a product (where `e` would become Euler's number)."""
    import re

    from engine.checking import parse_shape
    from engine.errors import AnswerError

    try:
        alone = parse_shape(f"({name}, q)") == parse_shape(f"{name} x q") == (name, "q")
        product = parse_shape(f"({name}*q,)")[0]
    except AnswerError:
        return False
    return alone and name in re.split(r"\W+", product)
