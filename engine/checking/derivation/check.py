"""Check one line of a derivation in this process, with no time bound (`check_step`).

The drills and `attnquiz check --step` call `bounded.check_step`, which runs this in the
checking worker; see the package's `__init__` for how a step is judged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engine.checking.derivation.indices import with_indices_used
from engine.checking.derivation.judging import judge
from engine.checking.derivation.random_polynomial import CannotEvaluate
from engine.checking.derivation.reader import StepReader
from engine.checking.derivation.step import Assumptions, StepVerdict, unchecked
from engine.errors import AnswerError, BankError


def check_step(
    previous: str | None,
    step: str,
    *,
    expected: str | None = None,
    assumptions: Assumptions | None = None,
    mistakes: Sequence[tuple[str, str]] = (),
) -> StepVerdict:
    """Check `step` as the line after `previous` (None for the first line).

    `expected` is the step the drill has in mind (its value, or a form such as
    `Σ_a E[q_a] E[k_a]`); `mistakes` pairs a known wrong value with what to tell the learner.
    The learner's text never raises; unreadable author text (`previous`, `expected`, mistakes,
    definitions) raises BankError.
    """
    texts = [text for text in (previous, step, expected) if text is not None]
    reader = StepReader(with_indices_used(assumptions or Assumptions(), texts))
    try:
        before = reader.author_side(previous) if previous is not None else None
        target = reader.author_side(expected) if expected is not None else None
        known = [(reader.author_side(text), message) for text, message in mistakes]
    except (AnswerError, CannotEvaluate) as error:
        raise BankError([f"a derivation step cannot be read: {error}"]) from None
    words = ""
    try:
        sides = reader.learner_sides(step, continues=before is not None)
    except AnswerError as error:
        worded = reader.split_off_words(step)
        try:
            if worded is None:
                raise
            sides = reader.learner_sides(worded[0], continues=before is not None)
        except AnswerError:
            return StepVerdict(
                readable=False, valid=False, reaches_expected=False, message=str(error)
            )
        except CannotEvaluate as cannot:
            return unchecked(f"could not check this step: {cannot}")
        step, words = worded
    except CannotEvaluate as error:
        return unchecked(f"could not check this step: {error}")
    try:
        verdict = judge(reader, before, sides, target, known, continuation=step.strip()[:1] == "=")
        if words:
            note = f" (the words `{_shortened(words)}` are not checked)"
            verdict = dataclasses.replace(verdict, message=verdict.message + note)
        return verdict
    except CannotEvaluate as error:
        return unchecked(
            f"could not check this step: {error}",
            interpreted_as=" = ".join(side.shown for side in sides),
        )
    except (Exception, RecursionError):  # a last line of defence: never a traceback
        return unchecked("could not check this step; try writing it more simply")


def _shortened(words: str, limit: int = 40) -> str:
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"
