"""Judging lines of a drill with the derivation checker, and re-checking a drill's own chain.

Both the runner (a learner's line) and lint (the author's expected lines) go through here, so a
drill that lints clean is judged by the same rules the learner meets. Every line is checked in
the warm checking worker with a hard time bound (`derivation.bounded.check_step`): a line that
takes too long gets a "could not check this step in time" verdict, never a hung drill.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from engine.checking.derivation.bounded import check_step
from engine.checking.derivation.step import Assumptions, StepVerdict, split_sides
from engine.checking.worker.bounded import Checker
from engine.drills.model import Drill, DrillStep
from engine.errors import AnswerError, BankError


def last_side(text: str) -> str:
    """The expression a line ends with: what the next line continues from."""
    try:
        return split_sides(text)[-1].strip() or text.strip()
    except AnswerError:
        return text.strip()


def previous_for(step: DrillStep, previous: str | None) -> str | None:
    """The line a step is checked against: none for a step judged by its value alone."""
    return previous if step.check == "follows" else None


def without_unknown(drill: Drill, step: DrillStep, line: str) -> str:
    """`d_k = 4 · 10 = 40` -> `4 · 10 = 40` when the step solves for d_k."""
    if step.solve_for is None:
        return line
    names = [step.solve_for, *drill.assumptions.aliases.get(step.solve_for, [])]
    pattern = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.sub(rf"^\s*(?:{pattern})\s*=(?!=)", "", line, count=1)


# What a line names on its left: the text before its first `=` or `:` (`bytes = …`, `Bytes: …`).
_LEFT_NAME = re.compile(r"([^=:]*)(?::|=(?!=))")


def _name_key(name: str) -> tuple[str, ...]:
    """A quantity's name as compared, part by part (`FLOPs/bytes` is a ratio of two): without
    spaces; a word of three letters or more without its case (`FLOPs`, `flops`); a shorter
    name is a symbol, whose case counts (`dL/dQ` is not `dL/dq`)."""
    parts = re.sub(r"\s+", "", name).split("/")
    return tuple(p.casefold() if p.isalpha() and len(p) >= 3 else p for p in parts)


def named_otherwise(drill: Drill, index: int, line: str) -> str:
    """Why a line that names on its left a quantity of the drill other than this step's is not
    this step: the quantity another step solves for (`bytes = 2T² d_k` or `Bytes: 2T² d_k` where
    the FLOPs are asked, `FLOPs = 40` where d_k is), or a ratio of them other than this step's
    (`bytes/FLOPs` where FLOPs/bytes is asked); "" when it names this step's quantity, nothing,
    or a name the drill does not use. The drill's own `solve_for` names (with their aliases)
    are its quantities."""
    found = _LEFT_NAME.match(line)
    if found is None or not found.group(1).strip():
        return ""
    said = found.group(1).strip()
    written = _name_key(said)
    step = drill.steps[index]
    asked_for = f"asks for {step.solve_for}" if step.solve_for else f"is step {index + 1}"
    named: dict[tuple[str, ...], int] = {}
    for number, other in enumerate(drill.steps, start=1):
        if other.solve_for is not None:
            names = [other.solve_for, *drill.assumptions.aliases.get(other.solve_for, [])]
            named |= {_name_key(name): number for name in names}
    if written in named:
        if named[written] == index + 1:
            return ""
        return (
            f"this step {asked_for}; your line gives {said}, which is another "
            f"quantity (step {named[written]}'s)"
        )
    if len(written) > 1 and all((part,) in named for part in written) and step.solve_for:
        return f"this step {asked_for}; your line gives {said}, which is another quantity"
    return ""


def asked(step: DrillStep) -> str:
    """The expected line as the checker is given it: `dL/dQ = G K / √d_k` when the step solves
    for dL/dQ, so that a line naming another quantity on its left (`dL/dK = ...`) is not it."""
    return step.expect if step.solve_for is None else f"{step.solve_for} = {step.expect}"


def with_given(assumptions: Assumptions, step: DrillStep) -> Assumptions:
    """The drill's assumptions with the values the step's question gives as definitions."""
    if not step.given:
        return assumptions
    definitions = {**assumptions.definitions, **step.given}
    return dataclasses.replace(assumptions, definitions=definitions)


def _given_left_out(step: DrillStep, verdict: StepVerdict) -> str:
    """What to say when a line ends with a name the question gives a value for (`√d_k` where
    the question asks for the value at d_k = 512): the general formula, not yet the value."""
    last = verdict.interpreted_as.rsplit(" = ", 1)[-1]
    for name, value in step.given.items():
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", last):
            return f"right formula; now put in {name} = {value}, as the question gives it"
    return ""


@dataclass(frozen=True)
class Judgement:
    """The verdict on one line, and the step it reached (`None` when it reached none)."""

    verdict: StepVerdict
    reached: int | None


def judge_line(
    checker: Checker,
    drill: Drill,
    index: int,
    previous: str | None,
    line: str,
    *,
    skip_ahead: bool = True,
) -> Judgement:
    """Judge `line` as step `index`; a line that reaches a later step skips the ones between
    (unless `skip_ahead` is False: then only step `index` is asked about).

    Every step of a `follows` chain has the same value, so a later step counts as reached only
    when the line also ends in that step's form (as the checker reads both). Skipping only runs
    along `follows` steps: a step judged by its value alone, or rated by the learner, has to be
    done in its own line, though a line with its value may go on into the `follows` steps that
    continue it.

    Skipping is going further, not leaving the step out: a line that only states, in closed
    form, the result the chain of steps ends with (`0`, `d_k`, `1`) where the step asks for a
    form (a sum, an E, a Var) is not this step, whatever its value, unless the same line shows
    the step on the way there (`Σ_a E[q_a] E[k_a] = 0`).
    """
    step = drill.steps[index]
    if other := named_otherwise(drill, index, line):
        return Judgement(
            StepVerdict(readable=True, valid=False, reaches_expected=False, message=other), None
        )
    assumptions = with_given(drill.assumptions.for_checker(), step)
    before = previous_for(step, previous)
    text = without_unknown(drill, step, line)
    mistakes = [(m.value, m.message) for m in step.mistakes]
    verdict = check_step(
        checker, before, text, expected=asked(step), assumptions=assumptions, mistakes=mistakes
    )
    if verdict.correct and (left_out := _given_left_out(step, verdict)):
        return Judgement(
            dataclasses.replace(verdict, reaches_expected=False, message=left_out), None
        )
    if not verdict.correct:
        if skip_ahead and step.check == "value" and verdict.valid:
            # Right for this step but not in its form: it may be in the form of the `follows`
            # steps that continue this one (`d_k/(4(1 + d_k/T))` where T d_k/(4(d_k + T)) is
            # asked, and the next step divides by T), which goes further, not elsewhere.
            going_on = _continued(checker, drill, index, text, assumptions)
            if going_on is not None:
                return going_on
        return Judgement(verdict, None)
    end = index
    while end + 1 < len(drill.steps) and drill.steps[end + 1].check == "follows":
        end += 1
    if (
        end > index
        and verdict.closed
        and _reaches_form(checker, before, text, drill.steps[end].expect, assumptions)
        and not check_step(checker, None, last_side(step.expect), assumptions=assumptions).closed
        and not _shows_on_the_way(checker, before, text, step.expect, assumptions)
    ):
        return Judgement(
            dataclasses.replace(verdict, reaches_expected=False, message=NO_WORKING), None
        )
    if not skip_ahead:
        return Judgement(verdict, index)
    for later in range(end, index, -1):
        ahead = _reaches_form(checker, before, text, drill.steps[later].expect, assumptions)
        if ahead is not None:
            return Judgement(ahead, later)
    return Judgement(verdict, index)


def _continued(
    checker: Checker, drill: Drill, index: int, text: str, assumptions: Assumptions
) -> Judgement | None:
    """The judgement on `text` as one of the `follows` steps right after the value step `index`,
    continuing from that step's expected line, when it reaches one in its form."""
    before = last_side(drill.steps[index].expect)
    later = index + 1
    found = None
    while later < len(drill.steps) and drill.steps[later].check == "follows":
        expected = drill.steps[later].expect
        ahead = check_step(checker, before, text, expected=expected, assumptions=assumptions)
        if not ahead.valid:
            break  # it does not follow from this step's result: no later step is reached
        if ahead.correct and _shown_last(ahead.interpreted_as) == _shown_last(
            check_step(checker, None, last_side(expected), assumptions=assumptions).interpreted_as
        ):
            found = Judgement(ahead, later)
        later += 1
    return found


NO_WORKING = (
    "right value, but that is where the derivation ends, with this step left out: write the "
    "step this line asks for (you may go on from it in the same line, with `=`)"
)


def _reaches_form(
    checker: Checker, before: str | None, text: str, expected: str, assumptions: Assumptions
) -> StepVerdict | None:
    """The verdict on `text` as the step `expected`, when it ends in that step's form."""
    ahead = check_step(checker, before, text, expected=expected, assumptions=assumptions)
    if ahead.correct and _shown_last(ahead.interpreted_as) == _shown_last(
        check_step(checker, None, last_side(expected), assumptions=assumptions).interpreted_as
    ):
        return ahead
    return None


def _shows_on_the_way(
    checker: Checker, before: str | None, text: str, expected: str, assumptions: Assumptions
) -> bool:
    """Whether a chain `a = b = c` reaches `expected` before its last side (at `b`), or, read
    right to left (`0 = Σ_a E[q_a] E[k_a]`), after its first. A side in closed form shows no
    step on the way: it is the end of the derivation again (`0 = Σ_a E[q_a k_a]`)."""
    try:
        sides = split_sides(text)
    except AnswerError:
        return False
    for stop in range(len(sides) - 1, 0, -1):
        for part in ("=".join(sides[:stop]), "=".join(sides[-stop:])):
            if not part.strip(" ="):
                continue
            shown = check_step(checker, before, part, expected=expected, assumptions=assumptions)
            if shown.correct and not shown.closed:
                return True
    return False


def _shown_last(interpreted: str) -> str:
    return interpreted.rsplit(" = ", 1)[-1].removeprefix("= ").strip()


def state_before(drill: Drill, index: int) -> str | None:
    """The line step `index` continues from when every step before it was done as expected.

    That is the start for the first step, the expected line of the step before otherwise, and
    nothing after a self-rated step (whose line the checker never saw).
    """
    if index == 0:
        return drill.start
    before = drill.steps[index - 1]
    return last_side(before.expect) if before.checked else None


def judge_at(
    checker: Checker, drill: Drill, index: int, line: str, *, skip_ahead: bool = True
) -> Judgement:
    """Judge `line` as step `index` (0-based) as if the steps before it were done as expected."""
    before = state_before(drill, index)
    return judge_line(checker, drill, index, before, line, skip_ahead=skip_ahead)


Where = tuple[str | int, ...]


def chain_problems(drill: Drill, checker: Checker) -> list[tuple[Where, str]]:
    """Re-check the drill's own expected lines, each from the one before (for lint)."""
    problems: list[tuple[Where, str]] = []
    try:
        assumptions = drill.assumptions.for_checker()
        if drill.start is not None:
            opening = check_step(checker, None, drill.start, assumptions=assumptions)
            if not opening.readable:
                problems.append((("start",), f"the start cannot be read: {opening.message}"))
                return problems
    except BankError as error:
        return [(("assumptions",), error.problems[0])]
    previous = drill.start
    for number, step in enumerate(drill.steps):
        where: Where = ("steps", number)
        if not step.checked:
            previous = None
            continue
        before = previous_for(step, previous)
        line = f"= {step.expect}" if before is not None else step.expect
        given = with_given(assumptions, step)
        try:
            verdict = check_step(checker, before, line, expected=step.expect, assumptions=given)
            mistakes = [
                (index, check_step(checker, before, ("= " if before else "") + m.value,
                                   expected=step.expect, assumptions=given))
                for index, m in enumerate(step.mistakes)
            ]  # fmt: skip
        except BankError as error:
            problems.append(((*where, "expect"), f"step {number + 1}: {error.problems[0]}"))
            return problems
        if not verdict.correct:
            how = "does not follow from the line before" if before else "does not check"
            problems.append(
                ((*where, "expect"), f"step {number + 1}: the expected line {how}: "
                 f"{verdict.message}")
            )  # fmt: skip
            return problems
        for index, wrong in mistakes:
            place = (*where, "mistakes", index, "value")
            if not wrong.readable:
                problems.append((place, f"step {number + 1}: a mistake cannot be read: "
                                 f"{wrong.message}"))  # fmt: skip
            elif wrong.correct:
                problems.append((place, f"step {number + 1}: a listed mistake is the right step"))
        previous = verdict.last_side or last_side(step.expect)
    return problems
