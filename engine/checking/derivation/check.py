"""Check one line of a derivation in this process, with no time bound (`check_step`).

The drills and `attnquiz check --step` call `bounded.check_step`, which runs this in the
checking worker; see the package's `__init__` for how a step is judged.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from engine.checking.derivation.indices import with_indices_used
from engine.checking.derivation.judging import Judge, form_of, restates
from engine.checking.derivation.notation import PartialSum, name_of
from engine.checking.derivation.random_polynomial import CannotEvaluate
from engine.checking.derivation.reader import StepReader, reader_for
from engine.checking.derivation.step import Assumptions, Side, StepVerdict, split_sides, unchecked
from engine.checking.reading.brackets import top_level
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
    if (implied := _implied(step)) is not None:  # `d_k/4 = 10 ⇒ d_k = 40`: the step is d_k = 40
        step, note = implied, " (what comes before ⇒ is not checked)"
    if expected is not None:
        step = _without_name(reader, step, expected)
    if (closers := _left_open(step)) and _readable(reader, step + closers, before is not None):
        step += closers  # `p_i (δ_ij − p_j`: the bracket a fair reader closes at the end
        note += f" (read with the `{closers}` left open at the end closed)"
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
        step, note = rest[0], note + added
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
    if before is not None and (summed := _each_term(reader, before, sides, step)) is not None:
        sides = summed  # `E[q_a k_a] = E[q_a] E[k_a]` after Σ_a E[q_a k_a]: the step on each term
    if _right_to_left(sides):  # `d_k = Var(q·k)`: the result first, the quantity it is last
        sides = sides[::-1]
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


# An implication: what comes after it is the step, what comes before it the reason.
_IMPLIES = re.compile(r"⇒|⟹|=>|\\implies(?![A-Za-z])|\\Rightarrow(?![A-Za-z])|∴")


def _implied(step: str) -> str | None:
    """`d_k/4 = 10 ⇒ d_k = 40` -> `d_k = 40`: the conclusion of a line that states an
    implication outside brackets; None for a line with none."""
    cut = -1
    for found in top_level(_IMPLIES, step):
        cut = found.end()
    if cut < 0 or not step[cut:].strip():
        return None
    return step[cut:]


def _without_name(reader: StepReader, step: str, expected: str) -> str:
    """`d_k = 40` or `40 = d_k` -> `40` when the step asks for d_k (the expected line names it
    on its left): the name the line solves for, at either end, is not a side to check."""
    try:
        asked, written = split_sides(expected), split_sides(step)
        if len(asked) < 2 or len(written) < 2 or not asked[0].strip():
            return step
        name = reader.read(asked[0])
        if not name.is_Symbol:
            return step
        if written[0].strip() and reader.read(written[0]) == name:
            return "=".join(written[1:])
        if reader.read(written[-1]) == name:
            return "=".join(written[:-1])
    except (AnswerError, CannotEvaluate):
        pass
    return step


def _each_term(reader: StepReader, before: Side, sides: list[Side], step: str) -> list[Side] | None:
    """The sides of a line that does the step on one term of the sum the line before is
    (`E[q_a k_a] = E[q_a] E[k_a]` after Σ_a E[q_a k_a], as the step asks "split each E[q_a k_a]"),
    each summed over that term's index; None for any other line. Its first side must be the
    term, with the index the learner chose."""
    if len(sides) < 2 or not _is_sum(before.expr) or _is_sum(sides[0].expr):
        return None
    indices = reader.free_indices(sides[0].expr)
    if len(indices) != 1 or step.strip()[:1] == "=":
        return None
    (index,) = indices
    try:
        summed = [
            reader.side(text, reader.read(f"Σ_{index} ({text})")) for text in split_sides(step)
        ]
    except (AnswerError, CannotEvaluate):
        return None
    return summed if restates(before, summed[0]) else None


def _is_sum(expr: object) -> bool:
    return str(getattr(expr, "func", "")) == "sum"


def _right_to_left(sides: list[Side]) -> bool:
    """Whether a line states its result first and the quantity it works out last, as notes and
    textbooks often do (`0 = E[q·k]`, `d_k = Var(q·k)`, `k_t/√d_k = ∂s_t/∂q`): its last side
    is less worked out than its first, still having a form (E or Var of a whole sum, a
    derivative, a Var) that comes earlier in a derivation than any form the first side has."""
    if len(sides) < 2:
        return False
    last, first = form_of(sides[-1].expr), form_of(sides[0].expr)
    return bool(last) and min(last) < min(first, default="9")


# At most this many brackets left open at the end of a line are closed for the learner.
MAX_LEFT_OPEN = 2
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _left_open(step: str) -> str:
    """The brackets a line opens and never closes, closed in order (`)`, `])`), when that is
    all that is wrong with its brackets: every closing bracket matches the one opened last, and
    one or two are left open at the end (an obvious slip, when the line reads with them closed
    there: not `E[q·k = 0`). "" for any other line."""
    waiting: list[str] = []
    for char in step:
        if char in _PAIRS:
            waiting.append(_PAIRS[char])
        elif char in _PAIRS.values() and (not waiting or waiting.pop() != char):
            return ""
    if len(waiting) > MAX_LEFT_OPEN:
        return ""
    return "".join(reversed(waiting))


def _readable(reader: StepReader, step: str, continues: bool) -> bool:
    try:
        reader.learner_sides(step, continues=continues)
    except (AnswerError, CannotEvaluate):
        return False
    return True


def _another_quantity(reader: StepReader, step: str, expected: str) -> str:
    """Why a line whose left side (or, written right to left, last side) names another quantity
    than the one the step asks for is not the step (`dL/dK = G K/√d_k` where the step asks for
    dL/dQ), or "" when it names the same one or none. Only a name the checker reads as such is
    compared: a derivative of a quantity the drill does not define, on the left of the expected
    step and at an end of the line."""
    try:
        asked, written = split_sides(expected), split_sides(step)
    except AnswerError:
        return ""
    if len(asked) < 2 or len(written) < 2:
        return ""
    asked_name, name = asked[0].strip(), written[0].strip()
    if not reader.is_label(name):  # `G K/√d_k = dL/dK`: right to left, the name comes last
        name = written[-1].strip() if reader.is_label(written[-1], words=False) else ""
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
                      if name_of(s) == name)  # fmt: skip
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
