"""One drill, step by step: the state of a run, with no terminal and no store.

The front end feeds it lines and commands; it says what happened and, at the end, how the drill
went as a rating: every step right first time is Good (Easy when the learner also skipped steps),
a step that needed a hint makes it Hard, and a step whose expected line had to be shown, Again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine.checking.derivation.step import StepVerdict
from engine.checking.worker.bounded import Checker
from engine.drills.chain import judge_line, last_side
from engine.drills.model import Drill, DrillStep
from engine.schedule import Grade

MISSES_BEFORE_REVEAL = 2


class StepResult(Enum):
    FIRST_TRY = "first try"
    HINTED = "after a hint"
    REVEALED = "shown"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Reply:
    """What one typed line did: the verdict, the steps it finished, and what to show next."""

    verdict: StepVerdict
    done: tuple[int, ...] = ()  # steps finished by this line, skipped ones included
    hint: str | None = None  # shown after a first miss
    revealed: str | None = None  # the expected line, shown after a second miss


def grade_of(results: list[StepResult]) -> Grade:
    if StepResult.REVEALED in results:
        return Grade.AGAIN
    if StepResult.HINTED in results:
        return Grade.HARD
    if StepResult.SKIPPED in results:
        return Grade.EASY
    return Grade.GOOD


@dataclass
class DrillRun:
    drill: Drill
    checker: Checker  # judges each line (in its worker, within the time bound)
    index: int = 0
    previous: str | None = None
    misses: int = 0
    hinted: bool = False
    results: dict[int, StepResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.previous = self.drill.start

    @property
    def finished(self) -> bool:
        return self.index >= len(self.drill.steps)

    @property
    def step(self) -> DrillStep:
        return self.drill.steps[self.index]

    def grade(self) -> Grade:
        return grade_of([self.results[n] for n in sorted(self.results)])

    def answer(self, line: str) -> Reply:
        """Judge a typed line for the current (checked) step."""
        judgement = judge_line(self.checker, self.drill, self.index, self.previous, line)
        if judgement.reached is not None:
            done = tuple(range(self.index, judgement.reached + 1))
            for number in done[:-1]:
                self.results[number] = StepResult.SKIPPED
            self.index = judgement.reached
            # Go on from the author's form of the step reached: it has the learner's value and
            # is known to read cleanly as the next line's starting point.
            self._finish(self._result(), last_side(self.drill.steps[judgement.reached].expect))
            return Reply(judgement.verdict, done=done)
        self.misses += 1
        if self.misses < MISSES_BEFORE_REVEAL:
            self.hinted = True
            return Reply(judgement.verdict, hint=self.step.hint)
        expected, number = self.step.expect, self.index
        self._finish(StepResult.REVEALED, last_side(expected))
        return Reply(judgement.verdict, done=(number,), revealed=expected)

    def hint(self) -> str:
        self.hinted = True
        return self.step.hint

    def reveal(self) -> str:
        """`:skip`: show the expected line and go on from it."""
        expected = self.step.expect
        self._finish(StepResult.REVEALED, last_side(expected))
        return expected

    def rate(self, grade: Grade) -> None:
        """The learner's own rating of a self-rated step."""
        result = {
            Grade.AGAIN: StepResult.REVEALED,
            Grade.HARD: StepResult.HINTED,
        }.get(grade, StepResult.HINTED if self.hinted else StepResult.FIRST_TRY)
        self._finish(result, None)

    def _result(self) -> StepResult:
        return StepResult.HINTED if self.hinted else StepResult.FIRST_TRY

    def _finish(self, result: StepResult, continue_from: str | None) -> None:
        self.results[self.index] = result
        self.previous = continue_from
        self.index += 1
        self.misses = 0
        self.hinted = False
