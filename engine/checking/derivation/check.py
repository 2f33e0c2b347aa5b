"""Check one line of a derivation in this process, with no time bound (`check_step`).

The drills and `attnquiz check --step` call `bounded.check_step`, which runs this in the
checking worker; see the package's `__init__` for how a step is judged.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from engine.checking.derivation.indices import with_indices_used
from engine.checking.derivation.judging import Judge
from engine.checking.derivation.notation import PartialSum
from engine.checking.derivation.random_polynomial import CannotEvaluate
from engine.checking.derivation.reader import StepReader, reader_for
from engine.checking.derivation.step import Assumptions, Side, StepVerdict, split_sides, unchecked
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
    reader = reader_for(with_indices_used(assumptions or Assumptions(), texts))
    try:
        before = reader.author_side(previous) if previous is not None else None
        target = reader.author_side(expected) if expected is not None else None
        known = [(reader.author_side(text), message) for text, message in mistakes]
    except (AnswerError, CannotEvaluate) as error:
        raise BankError([f"a derivation step cannot be read: {error}"]) from None
    note = ""
    try:
        sides = reader.learner_sides(step, continues=before is not None)
    except PartialSum as error:  # read, and a different sum from the one over every term
        return StepVerdict(readable=True, valid=False, reaches_expected=False, message=str(error))
    except AnswerError as error:
        # A line may end with its reason or unit in words, or with a rounded value: the
        # expression before them is the step (`since E[q_a] = 0`, `FLOPs`, `√512 ≈ 22.63`).
        # An approximate form may follow the exact one, with the limit it holds in (`≈ d_k/4
        # for T ≫ d_k`): the exact part is the step, the approximation is checked as a limit.
        rest = reader.split_off_words(step) or reader.split_off_rounding(step)
        approximation = reader.split_off_approximation(rest[0] if rest else step)
        if approximation is not None:
            rest = (approximation[0], rest[1] if rest else "")
        try:
            if rest is None:
                raise
            sides = reader.learner_sides(rest[0], continues=before is not None)
        except AnswerError:
            return StepVerdict(
                readable=False, valid=False, reaches_expected=False, message=str(error)
            )
        except CannotEvaluate as cannot:
            return unchecked(f"could not check this step: {cannot}")
        added = (
            _note(rest, sides[-1].expr)
            if approximation is None
            else _approximation_note(reader, sides[-1], approximation[1], rest[1])
        )
        if added is None:
            return StepVerdict(
                readable=False, valid=False, reaches_expected=False, message=str(error)
            )
        step, note = rest[0], added
        if note.startswith("`"):  # the rounded value does not hold
            return StepVerdict(
                readable=True, valid=False, reaches_expected=False, message=note,
                interpreted_as=" = ".join(side.shown for side in sides),
            )  # fmt: skip
    except CannotEvaluate as error:
        return unchecked(f"could not check this step: {error}")
    if expected is not None and (other := _another_quantity(reader, step, expected)):
        return StepVerdict(
            readable=True, valid=False, reaches_expected=False, message=other,
            interpreted_as=" = ".join(side.shown for side in sides),
        )  # fmt: skip
    try:
        continuation = step.strip()[:1] == "="
        verdict = Judge(reader).judge(before, sides, target, known, continuation=continuation)
        if note:
            verdict = dataclasses.replace(verdict, message=verdict.message + note)
        return verdict
    except CannotEvaluate as error:
        return unchecked(
            f"could not check this step: {error}",
            interpreted_as=" = ".join(side.shown for side in sides),
        )
    except (Exception, RecursionError):  # a last line of defence: never a traceback
        return unchecked("could not check this step; try writing it more simply")


def _another_quantity(reader: StepReader, step: str, expected: str) -> str:
    """Why a line whose left side names another quantity than the one the step asks for is not
    the step (`dL/dK = G K/√d_k` where the step asks for dL/dQ), or "" when it names the same
    one or none. Only a name the checker reads as such is compared: a derivative of a quantity
    the drill does not define, on the left of both the line and the expected step."""
    try:
        asked, written = split_sides(expected), split_sides(step)
    except AnswerError:
        return ""
    if len(asked) < 2 or len(written) < 2:
        return ""
    asked_name, name = asked[0].strip(), written[0].strip()
    if not (name and reader.is_label(asked_name) and reader.is_label(name)):
        return ""
    try:
        if reader.read(asked_name) == reader.read(name):
            return ""
    except AnswerError:
        return ""
    return f"this step asks for {asked_name}; your line gives {name}, which is another quantity"


# The limit an approximation holds in: `for T ≫ d_k`, `as T → ∞`, `T \gg d_k`.
_LARGE = re.compile(
    r"([A-Za-z][A-Za-z0-9_{}]*)\s*(?:≫|>>|\\gg(?![A-Za-z])|(?:→|->|\\to(?![A-Za-z]))\s*"
    r"(?:∞|\\infty|inf(?:inity)?))"
)


def _approximation_note(reader: StepReader, exact: Side, approximation: str, words: str) -> str:
    """What to add to the verdict on a line that ends with an approximate form: nothing when it
    holds in the limit the words name (`for T ≫ d_k`: the ratio of the two tends to 1), a
    message (starting with a backtick) when it does not, a note when no limit is named."""
    import sympy

    shown = approximation.removeprefix("≈").strip()
    large = _LARGE.search(words)
    if large is None:
        note = f"`≈ {shown}` is not checked: say in which limit it holds, as in `for T ≫ d_k`"
        return f" ({note}{'; the words are not checked' if words else ''})"
    name = reader.rename.get(large.group(1), large.group(1))
    try:
        approximate = reader.read(shown)
        symbol = next(s for s in exact.expr.free_symbols | approximate.free_symbols
                      if str(s) == name)  # fmt: skip
        if not reader.is_closed(exact):
            raise ValueError("not a closed form")
        ratio = sympy.limit(exact.expr / approximate, symbol, sympy.oo)
    except (Exception, RecursionError):
        return f" (`≈ {shown}` is not checked)"
    if ratio == 1:
        return ""
    return (
        f"`{exact.shown} ≈ {shown}` does not hold as {name} grows: the ratio of the two sides "
        f"tends to {reader.show(ratio)}, not 1"
    )


def _shortened(words: str, limit: int = 40) -> str:
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"


def _note(rest: tuple[str, str], last: object) -> str | None:
    """What to add to the verdict on a line read without its words or its rounded value: a
    note that the words are not checked; for a rounded value, nothing when it holds to its
    digits, a message (starting with a backtick) when it does not, None when the side it
    rounds is not a number."""
    expression, tail = rest
    if not tail.startswith("≈"):
        return f" (the words `{_shortened(tail)}` are not checked)"
    shown = tail.removeprefix("≈").strip()
    digits = len(shown.partition(".")[2])
    try:
        value = float(last)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    if abs(value - float(shown)) <= 0.5 * 10.0**-digits * (1 + 1e-9):
        return ""
    return f"`{expression.strip()} ≈ {shown}` does not hold: it is {value:.6g}"
