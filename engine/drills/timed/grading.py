"""Grading a timed drill's answers with the real checkers, and the text it asks and shows.

Items are graded in the bounded checking worker, derivation steps with `check_step`, and code by
the same checking as `attnquiz submit` (in the sandbox). Lint runs every model answer through the
same checks, so an author is told when the drill would refuse its own answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from engine.bank.model import QuestionSet
from engine.checking.reading.statement import number_word
from engine.checking.reading.typography import without_markup
from engine.checking.worker.bounded import Checker
from engine.drills.clocked.check import as_check, check_card
from engine.drills.clocked.run import QuestionCheck
from engine.drills.model import AssumptionsSpec
from engine.drills.timed.file import CodeSpec, StepSpec, TimedDrill, TimedPart, TimedQuestion
from engine.verdict import Verdict, graded_as_offered


class BankChecker:
    """Grades items in the bounded checking worker, steps with `check_step`, code in the sandbox."""

    def __init__(self, qset: QuestionSet, checker: Checker) -> None:
        self.qset = qset
        self.checker = checker

    def check(self, part: TimedPart, question: TimedQuestion, answer: str) -> QuestionCheck:
        if question.item is not None:  # the card reads markdown marks and answers offered
            return self._item(question.item, answer)
        if question.step is not None:
            step, model = question.step, question.answer or ""
            # `` `d_k` ``, `d_k or d_k^2`: graded as a typed card grades them.
            return as_check(
                graded_as_offered(
                    answer,
                    lambda one: _step(
                        self.checker, part.assumptions, step, number_word(one), model
                    ),
                )
            )
        assert question.code is not None
        return _code(question.code, without_markup(answer))  # a fenced block of code

    def _item(self, item_id: str, answer: str) -> QuestionCheck:
        item = self.qset.item(item_id)
        assert item is not None, "checked when the drill was loaded"
        return check_card(self.checker, item, answer)


def _step(
    checker: Checker, assumptions: AssumptionsSpec, spec: StepSpec, answer: str, model: str = ""
) -> Verdict:
    from engine.checking.derivation.bounded import check_step

    names = {*assumptions.symbols, *assumptions.definitions, *spec.must_use}
    answer = without_definition(answer, names)
    verdict = check_step(
        checker,
        spec.previous,
        answer,
        expected=spec.expected,
        assumptions=assumptions.for_checker(),
        mistakes=[(m.value, m.message) for m in spec.mistakes],
    )
    if not verdict.readable:
        return Verdict(
            False, valid=False, interpreted_as=verdict.interpreted_as, feedback=verdict.message
        )
    if not spec.must_use:
        return _verdict(verdict.correct, verdict.message, verdict.interpreted_as)
    from engine.checking.derivation.step import split_sides

    found = [missing_names(side, spec.must_use) for side in split_sides(answer)]
    missing = "" if "" in found else found[-1]
    missing = missing or added_names(answer, model, spec.must_use)
    if verdict.correct and missing:
        return _verdict(
            False, "true, but not the form asked for: " + missing, verdict.interpreted_as
        )
    message = verdict.message
    if not verdict.correct and missing and missing not in message:
        message = f"{message}; {missing}"
    return _verdict(verdict.correct, message, verdict.interpreted_as)


def _verdict(correct: bool, feedback: str, interpreted_as: str) -> Verdict:
    return Verdict(correct, interpreted_as=interpreted_as, feedback=feedback, score=float(correct))


# `..., m = max_j s_j`, `... where m = max_j s_j`: the line, then what one of its names means.
_DEFINITION = re.compile(
    r"(?P<line>.*?\S)\s*(?:,|;|\bwhere\b|\bwith\b)\s*(?P<name>[A-Za-z]\w*)\s*(?::=|=|≡)"
    r"\s*[^=,;]*?\S\s*\.?\s*",
    re.DOTALL,
)


def without_definition(line: str, names: set[str]) -> str:
    """`line` without a closing reminder of what one of the question's own names means, which
    says nothing the question does not: `e^{s_i - m} / Σ_j e^{s_j - m}, m = max_j s_j`."""
    from engine.checking.reading.safe_ast import MAX_LENGTH

    if len(line) > MAX_LENGTH:  # the step checker refuses it; no pattern runs on hostile text
        return line
    match = _DEFINITION.fullmatch(line)
    if match is None or match.group("name") not in names:
        return line
    return match.group("line")


def added_names(line: str, model: str, names: tuple[str, ...]) -> str:
    """Where a line adds a name that the model answer only ever subtracts: the max trick shifts
    the scores down by m, and `e^{s_i + m} / Σ_j e^{s_j + m}`, equal in value, overflows sooner.
    """
    from engine.checking.reading.safe_ast import MAX_LENGTH

    said = []
    for name in names if len(line) <= MAX_LENGTH else ():
        if _signs(model, name) == {"-"} and _signs(line, name) - {"-"}:
            said.append(f"the {name} is added, but the form asked for subtracts it")
    return "; ".join(said)


def _signs(text: str, name: str) -> set[str]:
    """The sign before each mention of `name` in `text`: "-", "+", or "" for none. A name in
    the exponent of a divisor is subtracted: `e^{s_i}/e^m` is `e^{s_i - m}`, and `/e^{-m}` adds."""
    divisor = r"(?P<divisor>/\s*(?:e\s*\^\s*\{?|exp\s*\()\s*)?"
    pattern = rf"{divisor}(?P<sign>[-+−]?)\s*(?<![\w]){re.escape(name)}(?!\w)"
    signs = set()
    for m in re.finditer(pattern, text):
        sign = m.group("sign").replace("−", "-")
        if m.group("divisor"):
            sign = "+" if sign == "-" else "-"
        signs.add(sign)
    return signs


def missing_names(line: str, names: tuple[str, ...]) -> str:
    """Where a line leaves out a name it must use: "the m is missing from the denominator".

    A fraction is looked at part by part (numerator, denominator), so a learner who shifted the
    numerator only is told about the denominator; "" when every name is everywhere it belongs.
    """
    parts = _fraction_parts(line)
    said = []
    for name in names:
        lacking = [where for where, text in parts if not _mentions(text, name)]
        if len(lacking) == len(parts):
            whole = " and the ".join(lacking) if len(parts) > 1 else "the line"
            said.append(
                f"the {name} is missing from the {whole}"
                if len(parts) > 1
                else f"{name} is missing from {whole}"
            )
        elif lacking:
            said.append(f"the {name} is missing from the {lacking[0]}")
    return "; ".join(said)


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?!\w)", text) is not None


def _fraction_parts(line: str) -> list[tuple[str, str]]:
    """[("numerator", ...), ("denominator", ...)] for `a / b` at the top level, else the line.
    Division groups to the left, so `a/b / (c/d)` divides `a/b` by `(c/d)`: the last slash."""
    depth, slash = 0, -1
    for position, char in enumerate(line):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if char == "/" and depth == 0:
            slash = position
    if slash >= 0:
        return [("numerator", line[:slash]), ("denominator", line[slash + 1 :])]
    frac = line.find("\\frac")
    if frac >= 0:
        numerator, end = _braced(line, frac + len("\\frac"))
        denominator, _ = _braced(line, end)
        if numerator is not None and denominator is not None:
            return [("numerator", numerator), ("denominator", denominator)]
    return [("line", line)]


def _braced(text: str, start: int) -> tuple[str | None, int]:
    """The text of the `{...}` group at `start` (after spaces) and where it ends."""
    position = start
    while position < len(text) and text[position].isspace():
        position += 1
    if position >= len(text) or text[position] != "{":
        return None, position
    depth = 0
    for end in range(position, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[position + 1 : end], end + 1
    return None, len(text)


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


# -- lint: every model answer must pass the drill's own checks ---------------------------------
def timed_drill_problems(
    drill: TimedDrill, qset: QuestionSet, path: str, checker: Checker
) -> list[str]:
    """Every `PATH:LINE: message` about a model answer the drill's checks refuse."""
    grader = BankChecker(qset, checker)
    problems = []
    for p, part in enumerate(drill.parts):
        for q, question in enumerate(part.questions):
            answer = model_answer(qset, question)
            line = drill.lines[p][q] if drill.lines else 1
            if not answer:
                problems.append(f"{path}:{line}: part {part.id!r}: the question has no answer")
                continue
            check = grader.check(part, question, answer)
            if not check.correct:
                problems.append(
                    f"{path}:{line}: part {part.id!r}: the model answer does not pass its own "
                    f"check: {check.feedback or 'wrong'}"
                )
    return problems
