"""Judge a typed number: chains, labels, working in brackets, units, rounding.

`check_number` reads what learners write for a number: `22.6`, `√512 ≈ 22.6`, `σ = 22.6`,
`8 (√64)`, `0.471 (= 1.781/3.781)`, `66%`, `forty`, `16 MiB`, `16384 KiB`, `d_k/4 = 10 → d_k = 40`.
The last link of a chain is the answer; every other link that can be read must be within the
tolerance too (a false link is named); the left side, when it names a quantity, must name what
the question asks (`asked`); working in brackets after a number must agree with it (its
disagreement is named), while a bracketed remark in words is ignored; an answer with a unit is
converted to the question's unit with pint, and a unit of another kind is wrong.

How close is right: a `Precision` (N decimals or N significant figures, stated by the item and
shown in its prompt) makes the true value rounded that way the answer, any typed value that
rounds to it is right (more digits are fine), and a near miss is told the rounded value; without
one, `abs_tol` / `rel_tol` (banks of format 1) decide.
"""

from __future__ import annotations

import cmath
import math
import re
from dataclasses import dataclass
from typing import Any

from engine.checking.equivalence.asked import judge_label, without_counted_noun
from engine.checking.equivalence.expression import (
    NotRealError,
    _evaluate_number,
    agrees_at_shown_digits,
    pretty,
)
from engine.checking.reading.notation import refuse_final_exclamation
from engine.checking.reading.python_spelling import rewrite
from engine.checking.reading.safe_ast import check_size
from engine.checking.reading.statement import (
    Chain,
    has_words,
    is_plain_number,
    leading_number_word,
    number_word,
    split_chain,
    trailing_group,
)
from engine.checking.reading.typography import plain_latex_layout
from engine.errors import AnswerError
from engine.verdict import Verdict

# `above 40`, `at least 40`: a threshold asked for as a number.
_THRESHOLD = re.compile(
    r"^(?:above|over|at least|more than|greater than|beyond|from)\s+", re.IGNORECASE
)
# How far off, in steps of the last required digit, an answer still counts as the right idea.
NEAR_MISS_STEPS = 5


@dataclass(frozen=True)
class Precision:
    """How the answer must be rounded: `decimals` places or `significant` figures."""

    decimals: int | None = None
    significant: int | None = None

    def half_step(self, value: float) -> float:
        """Half a unit of the last digit that must be right, for `value`."""
        if self.decimals is not None:
            return 0.5 * 10.0 ** (-self.decimals)
        assert self.significant is not None
        if value == 0:
            return 0.0
        exponent = math.floor(math.log10(abs(value)))
        return 0.5 * 10.0 ** (exponent - self.significant + 1)

    def rounded(self, value: float) -> str:
        if self.decimals is not None:
            return f"{value:.{self.decimals}f}"
        assert self.significant is not None
        return f"{value:.{self.significant}g}"

    def words(self) -> str:
        if self.decimals is not None:
            if self.decimals == 0:
                return "to the nearest whole number"
            return f"to {self.decimals} decimal{'s' if self.decimals != 1 else ''}"
        return f"to {self.significant} significant figure{'s' if self.significant != 1 else ''}"


@dataclass(frozen=True)
class Tolerance:
    abs_tol: float | None = None
    rel_tol: float | None = None
    precision: Precision | None = None

    def allowed(self, expected: float) -> float:
        if self.precision is not None:
            return self.precision.half_step(expected) * (1 + 1e-9) + 1e-15
        if self.abs_tol is None and self.rel_tol is None:
            return 1e-9 * max(1.0, abs(expected))
        return max(self.abs_tol or 0.0, (self.rel_tol or 0.0) * abs(expected))


# `undefined`, `it depends on the scores`, `does not exist`: the claim that there is no value.
_NO_SINGLE_VALUE = re.compile(
    r"\s*(?:it\s+)?(?:(?:is\s+)?(?:undefined|not\s+defined|unknown|indeterminate)"
    r"|(?:it\s+)?depends(?:\s+on\s+[\w\s,.'-]{1,60})?"
    r"|(?:it\s+)?(?:does\s+not|doesn't|doesnt)\s+exist|no\s+(?:single\s+)?value)\s*[.!]?\s*",
    re.IGNORECASE,
)


_LIST_REFUSED = "a list of values is not an answer here"
# `nan`, `NaN`, `np.nan`, `float('nan')`: the claim that the result is not a number, readable and
# never equal to the real number a question asks for.
_NOT_A_NUMBER = re.compile(
    r"\s*(?:(?:np|numpy|math|torch)\s*\.\s*)?nan\s*|\s*float\s*\(\s*['\"]nan['\"]\s*\)\s*",
    re.IGNORECASE,
)
# `16,777,216`: digits grouped in thousands by commas are one number (a list needs more than
# that, and a decimal comma has fewer than three digits after it: `22,6`). `16 777 216`, as SI
# writes it, with a space (or a thin or no-break space) between the groups: one number too.
_THOUSANDS = re.compile(
    r"(?<![\w.,])[1-9]\d{0,2}(?:(?:,\d{3})+|(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\w,]|\.\d*,)"
)


@dataclass(frozen=True)
class _Reading:
    value: float
    shown: str
    problem: str | None = None  # working in brackets that disagrees, a unit of another kind
    converted: str = ""  # `16 GiB = 16384 MiB` when the answer was in another unit
    unitless: bool = False  # a plain number (the question's unit is implied)


def check_number(
    answer: str,
    expected: float,
    *,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    precision: Precision | None = None,
    unit: str | None = None,
    question: str = "",
) -> Verdict:
    """Grade a typed number against `expected` (see the module docstring).

    `unit` is the unit the question asks in (None: a plain number); `question` is its text,
    against which a left side such as `σ = ...` is judged.
    """
    tolerance = Tolerance(abs_tol, rel_tol, precision)
    try:
        check_size(answer)  # before splitting, so hostile text costs nothing
        answer = plain_latex_layout(answer)
        if _NO_SINGLE_VALUE.fullmatch(answer):
            # A readable claim that there is no value to give: wrong where the question has one.
            return Verdict(correct=False, feedback="it has one value, whatever the inputs are")
        if _NOT_A_NUMBER.fullmatch(answer):
            return Verdict(
                correct=False, interpreted_as="NaN", feedback="NaN is no value; the answer is one"
            )
        refuse_final_exclamation(answer, factorials=False)
        chain = split_chain(rewrite(answer).text, colon=False)
        links, label_problem = _without_label(chain, question, unit)
        readings: list[_Reading | None] = []
        for position, link in enumerate(links):
            last = position == len(links) - 1
            try:
                readings.append(_read(link, unit, tolerance))
            except AnswerError:
                if not last:
                    readings.append(None)  # working in words between the links: not checked
                    continue
                # `40 dims`, `2.1 seconds at best`: words that say what the answer counts
                shorter = without_counted_noun(link, question)
                if shorter == link:
                    raise
                readings.append(_read(shorter, unit, tolerance))
    except NotRealError:
        # Read, and not a real number: a readable answer to a question whose answer is one.
        return Verdict(correct=False, feedback="this is not a real number, and the answer is one")
    except AnswerError as error:
        if _LIST_REFUSED in str(error):  # `[3, 4]`: read, and a list where one number is asked
            return Verdict(correct=False, feedback="the question asks for one number, not a list")
        if _beyond_floating_point(answer):  # `1.8e308`: a number, typed in full, just too large
            return Verdict(
                correct=False,
                interpreted_as=answer.strip(),
                feedback=f"{answer.strip()} is nowhere near the answer",
            )
        return Verdict(correct=False, valid=False, feedback=str(error))
    final = readings[-1]
    assert final is not None
    shown = " = ".join(r.shown for r in readings if r is not None)
    allowed = tolerance.allowed(expected)

    def wrong(feedback: str) -> Verdict:
        return Verdict(correct=False, interpreted_as=shown, feedback=feedback)

    if label_problem:
        return wrong(label_problem)
    against = _against_the_question(chain, question)
    if against:
        return wrong(against)
    problems = [r.problem for r in readings if r is not None and r.problem]
    if problems:
        return wrong(problems[0])
    # `√512 ≈ 22.6` (or `22.6 ≈ √512`): the rounded value must be the exact one to its digits.
    before = readings[-2] if chain.rounded and len(readings) > 1 else None
    disagreement = ""
    if before is not None:
        disagreement = _rounding_problem(links, before, final, unit, tolerance)
    if disagreement and tolerance.precision is None:
        return wrong(disagreement)
    if (
        abs(final.value - expected) > allowed
        and not (
            # `√512 ≈ 22.6` with a tighter tolerance: the exact link is the answer.
            before is not None
            and tolerance.precision is None
            and abs(before.value - expected) <= allowed
        )
        and not _rounded_operands_allow(links[-1], final, expected, tolerance)
    ):
        miss = _miss(final.value, expected, tolerance)
        if final.unitless and _step_holds(final, expected, allowed, unit):
            # `16,777,216` asked in millions: the count itself, not in the unit asked for.
            miss = f"{final.shown} counts without the prefix of {unit}; give the answer in {unit}"
        if disagreement:
            miss = f"{miss}; {disagreement}"
        if final.converted:
            miss = f"in the unit the question asks for, {final.converted}: {miss}"
        return wrong(miss)
    if disagreement:
        return wrong(disagreement)
    checked = readings[:-2] if before is not None else readings[:-1]  # a rounding agrees
    for link, reading in zip(links, checked, strict=False):
        if reading is not None and not _step_holds(reading, expected, allowed, unit):
            return wrong(f"the step `{link}` does not hold: it is {_format(reading.value)}")
    precise = math.isclose(final.value, expected, rel_tol=1e-9, abs_tol=1e-12)
    feedback = "correct" if precise else f"correct to the stated precision; exactly {expected:.6g}"
    return Verdict(correct=True, interpreted_as=shown, feedback=feedback, score=1.0)


# Which way a threshold the question asks for lies: `above which d_k ...`, `below which T ...`.
_ASKS_ABOVE = re.compile(
    r"\b(?:above|more than|greater than|larger than|at least|exceeds?|beyond)\b", re.IGNORECASE
)
_ASKS_BELOW = re.compile(r"\b(?:below|under|less than|smaller than|at most)\b", re.IGNORECASE)
_STATES_BELOW, _STATES_ABOVE = frozenset({"<", "≤", "<="}), frozenset({">", "≥", ">="})


def _against_the_question(chain: Chain, question: str) -> str:
    """What is wrong with a bound that points away from the threshold asked for: `d_k < 40`
    where the question asks above which d_k. Empty when it points the right way, or when the
    answer states no bound or the question no direction."""
    if not chain.relations or chain.relations[-1] not in _STATES_BELOW | _STATES_ABOVE:
        return ""
    above, below = bool(_ASKS_ABOVE.search(question)), bool(_ASKS_BELOW.search(question))
    if above == below:
        return ""
    stated = f"{chain.links[-2]} {chain.relations[-1]} {chain.links[-1]}"
    if above and chain.relations[-1] in _STATES_BELOW:
        return f"`{stated}` points the other way: the question asks above which value"
    if below and chain.relations[-1] in _STATES_ABOVE:
        return f"`{stated}` points the other way: the question asks below which value"
    return ""


def _rounding_problem(
    links: list[str], before: _Reading, final: _Reading, unit: str | None, tolerance: Tolerance
) -> str:
    """What is wrong with `√512 ≈ 22.6` (or `22.6 ≈ √512`) as the last two links: the rounded
    value must be the exact one to the digits it shows. Empty when it is."""
    exact_first = is_plain_number(links[-1]) or not is_plain_number(links[-2])
    exact, value, typed = (before, final, links[-1]) if exact_first else (final, before, links[-2])
    if _agrees(exact.value, value.value, typed, unit, tolerance, rounded=True):
        return ""
    shown_exact = links[-2] if exact_first else links[-1]
    return f"`{links[-2]} ≈ {links[-1]}` does not hold: {shown_exact} is {_format(exact.value)}"


def _step_holds(reading: _Reading, expected: float, allowed: float, unit: str | None) -> bool:
    """Whether a link of working holds. Working may count in the unit without its prefix
    (`2048² × 4 = 16777216 = 16 MiB` in bytes, `4096² = 16.8M` as a count for millions)."""
    if abs(reading.value - expected) <= allowed:
        return True
    if unit is None or not reading.unitless:
        return False
    from engine.checking.equivalence.units import unprefixed_factor

    factor = unprefixed_factor(unit)
    return factor is not None and abs(reading.value / factor - expected) <= allowed


def _without_label(chain: Chain, question: str, unit: str | None) -> tuple[list[str], str]:
    links = list(chain.links)
    if len(links) < 2:
        return links, ""
    verdict = judge_label(links[0], question)
    if verdict.judgement == "other":
        return links[1:], verdict.message
    if verdict.judgement == "asked":
        return links[1:], ""
    try:
        _read(links[0], unit, Tolerance())
    except AnswerError:
        return links[1:], ""  # a label the question does not mention: `T = 8`, `FLOPs = ...`
    return links, ""


def _read(link: str, unit: str | None, tolerance: Tolerance) -> _Reading:
    text = leading_number_word(number_word(_THRESHOLD.sub("", link.strip(), count=1)))
    group = trailing_group(text)
    # `8 (√64)` is a number with its working, `16 MiB (2048·2048·4 B)` one with a unit, and
    # `0 (by symmetry)` one with a remark; `ln (x)` is a call.
    if group is not None and (
        is_plain_number(group[0]) or has_words(group[1]) or _split_unit(group[0]) is not None
    ):
        head, inner = group
        head_reading = _read(head, unit, tolerance)
        working = _working_value(inner, unit)
        if working is None or _overflow_remark(inner, working):
            return head_reading  # a remark in words: `0 (by symmetry)`
        if not _agrees(working, head_reading.value, head, unit, tolerance) and not _solves(
            inner, head_reading.value
        ):
            gives = f"{_format(working)}, not {_format(head_reading.value)}"
            problem = f"your working `{inner}` gives {gives}"
            return _Reading(head_reading.value, head_reading.shown, problem)
        return head_reading
    text = _plain_spellings(text)
    percent = re.fullmatch(r"(.*\d)\s*%", text)
    if percent:
        value = _value(percent.group(1))[1] / 100
        return _Reading(value, f"{_format(value)} ({text})")
    try:
        expr, value = _value(text)
    except AnswerError as error:
        split = _split_unit(text)
        if split is None:
            raise
        number, typed_unit = split
        try:
            _value(number)
        except AnswerError:  # `1/T` is no number `1/` in teslas: say what the whole lacks
            raise error from None
        return _with_unit(number, typed_unit, unit)
    shown = _format(value) if expr.is_Rational else f"{pretty(expr)} = {_format(value)}"
    return _Reading(value, shown, unitless=True)


def _with_unit(number: str, typed_unit: str, unit: str | None) -> _Reading:
    from engine.checking.equivalence.units import UnitMismatch, convert

    _, value = _value(number)
    if unit is None:
        raise AnswerError(
            "could not read this: the question asks for a plain number; "
            f"type it without `{typed_unit}`"
        )
    try:
        converted = convert(value, typed_unit, unit)
    except UnitMismatch as mismatch:
        return _Reading(value, f"{_format(value)} {typed_unit}", str(mismatch))
    shown = f"{_format(value)} {typed_unit}"
    if typed_unit.strip() != unit:
        conversion = f"{shown} is {_format(converted)} {unit}"
        shown += f" = {_format(converted)} {unit}"
        return _Reading(converted, shown, converted=conversion)
    return _Reading(converted, shown)


def _split_unit(text: str) -> tuple[str, str] | None:
    from engine.checking.equivalence.units import TRAILING_UNIT, known_unit

    match = TRAILING_UNIT.search(text)
    if match is None or match.start() == 0:
        return None
    number, typed = text[: match.start()].strip(), match.group(1).strip()
    if not number or typed in {"e", "pi", "inf"} or not known_unit(typed):
        return None
    return number, typed


def _working_value(inner: str, unit: str | None) -> float | None:
    """The value of bracketed working (`= √64`, `4 × 10`), None if it is words."""
    chain = split_chain(inner)
    for link in reversed(chain.links):
        if not link or has_words(link):
            continue
        try:
            return _read(link, unit, Tolerance()).value
        except AnswerError:
            continue
    return None


def _overflow_remark(inner: str, working: float) -> bool:
    """`88.7 (exp(88.8) = inf)`: an equation that ends in infinity says where overflow starts;
    no working reaches a finite number through an infinite one."""
    return math.isinf(working) and len([link for link in split_chain(inner).links if link]) > 1


def _solves(inner: str, value: float) -> bool:
    """Whether working stated as an equation in one unknown, `40 (d_k/4 = 10)`, is solved by
    the number it explains: the working is the condition the answer meets, not its value."""
    from engine.checking.equivalence.expression import read_expression
    from engine.checking.reading.safe_ast import Vocabulary

    chain = split_chain(inner)
    if len(chain.links) != 2 or chain.relations[0] != "=":
        return False
    names = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*(?!\s*\()", inner)) - {"e", "pi", "inf"}
    if len(names) != 1:
        return False
    try:
        vocabulary = Vocabulary(symbols=frozenset(names))
        left, right = (read_expression(link, vocabulary) for link in chain.links)
        unknowns = (left - right).free_symbols
        if len(unknowns) != 1:
            return False
        unknown = next(iter(unknowns))
        sides = [complex(side.subs(unknown, value).evalf()) for side in (left, right)]
    except (AnswerError, TypeError, ValueError, ArithmeticError):
        return False
    return cmath.isclose(sides[0], sides[1], rel_tol=1e-3, abs_tol=1e-9)


def _agrees(
    working: float,
    value: float,
    typed: str,
    unit: str | None,
    tolerance: Tolerance,
    *,
    rounded: bool = False,
) -> bool:
    """Whether working agrees with the number it explains: to the digits that number shows, or
    within the question's own tolerance (working from rounded numbers, `24·16·1.07` for 412),
    also when it counts in the unit without its prefix (`4·2048²·64` FLOP for 1.07 GFLOP)."""
    from engine.checking.equivalence.units import unprefixed_factor

    factor = unprefixed_factor(unit) if unit else None
    candidates = [working] if factor in (None, 1.0) else [working, working / factor]
    stated = tolerance.precision is None and bool(tolerance.abs_tol or tolerance.rel_tol)
    if stated and any(abs(c - value) <= tolerance.allowed(value) for c in candidates):
        return True
    return any(agrees_at_shown_digits(c, value, typed, rounded=rounded) for c in candidates)


# `ln(1.8e308)`, `log(1.8 × 10^308)`: the logarithm of a number in scientific notation, read as
# a human works it out, ln(1.8) + 308 ln(10), so a number beyond floating point (the float64
# maximum is 1.8e308) is no obstacle. `log` is the natural logarithm, as everywhere here.
_LOG_OF_SCIENTIFIC = re.compile(
    r"\b(ln|log)\s*\(\s*(\d+(?:\.\d*)?|\.\d+)\s*"
    r"(?:[eE]\s*|(?:\*|x|X|×|·|⋅)\s*10\s*(?:\^|\*\*)\s*)\(?\s*\+?(-?\d{1,4})\s*\)?\s*\)"
)


_DECIMAL = re.compile(r"(?<![\w.])\d+\.(\d+)(?![\w.])")
MAX_ROUNDED_OPERANDS = 8


def _rounded_operands_allow(
    link: str, final: _Reading, expected: float, tolerance: Tolerance
) -> bool:
    """Whether arithmetic on decimals rounded to the precision asked for reaches the answer
    within what that rounding carries through (`0.471 + 0.264` for 0.7355 to 3 decimals: each
    term may be off by 0.0005). Decimals rounded more coarsely than asked never do."""
    precision = tolerance.precision
    decimals = list(_DECIMAL.finditer(link))
    if precision is None or not decimals or len(decimals) > MAX_ROUNDED_OPERANDS:
        return False
    if is_plain_number(link) or not final.unitless:
        return False
    spread = 0.0
    for match in decimals:
        typed = float(match.group())
        half = 0.5 * 10.0 ** -len(match.group(1))
        if half > precision.half_step(typed if precision.significant else expected):
            return False  # rounded more coarsely than the question asks
        nudged = f"{link[: match.start()]}{typed + half!r}{link[match.end() :]}"
        try:
            spread += abs(_value(_plain_spellings(nudged))[1] - final.value)
        except AnswerError:
            return False
    return abs(final.value - expected) <= tolerance.allowed(expected) + spread * (1 + 1e-9)


def _beyond_floating_point(text: str) -> bool:
    """Whether `text` is one plain number too large for floating point (`1.8e308`), but with no
    more digits than the reader takes in any number (`1e400` and beyond stay unreadable)."""
    from decimal import Decimal

    from engine.checking.reading.safe_ast import MAX_DIGITS

    if not is_plain_number(text) or text.strip().endswith("%"):
        return False
    number = Decimal(text.strip().replace("−", "-"))
    return math.isinf(float(number)) and number.adjusted() < MAX_DIGITS


# `np.finfo(np.float32).max`: NumPy's machine constants are numbers.
_FINFO = re.compile(
    r"(?:\b(?:np|numpy)\s*\.\s*)?\bfinfo\s*\(\s*(?:(?:np|numpy)\s*\.\s*)?"
    r"(float16|float32|float64|half|single|double)\s*\)\s*\.\s*(max|min|eps|tiny)\b"
)
# `10^{308}`, `1.8 \times 10^{308}`, `3.4·10^38`: a power of ten typed in full is scientific
# notation, a number however large (as 1.8e308 is), not a power to compute.
_POWER_OF_TEN = re.compile(
    r"(?:(?<![\w.])(\d+(?:\.\d*)?)\s*(?:\*|×|·|⋅|\\times|\\cdot)\s*|(?<![\w.*^]))"
    r"10\s*(?:\^|\*\*)\s*(?:\{\s*([-+−]?\d{1,3})\s*\}|\(\s*([-+−]?\d{1,3})\s*\)|([-+−]?\d{1,3}))"
    r"(?![\d.^])"
)


def _scientific(match: re.Match[str]) -> str:
    mantissa = match.group(1) or "1"
    exponent = (match.group(2) or match.group(3) or match.group(4)).replace("−", "-")
    return f"{mantissa}e{exponent}"


def _finfo(match: re.Match[str]) -> str:
    import numpy as np

    kind = {"half": "float16", "single": "float32", "double": "float64"}.get(
        match.group(1), match.group(1)
    )
    return repr(float(getattr(np.finfo(getattr(np, kind)), match.group(2))))


def _plain_spellings(text: str) -> str:
    text = plain_latex_layout(text)  # `22{,}6`, `\left( ... \right)`
    if "finfo" in text:
        text = _FINFO.sub(_finfo, text)
    text = re.sub(r"\\(ln|log)(?![A-Za-z])", r"\1", text)  # LaTeX's \ln(...)
    text = re.sub(r"(?<=\d)\s*[xX]\s*(?=10\s*(?:\^|\*\*))", "*", text)  # 4.5x10^-5
    if "10" in text:
        text = _POWER_OF_TEN.sub(_scientific, text)
    text = _LOG_OF_SCIENTIFIC.sub(r"(\1(\2) + (\3)*\1(10))", text)
    if text.count(",") == 1:  # 22,6, 0,471, 4,5e-5, 2,06 s: a decimal comma
        text = _DECIMAL_COMMA.sub(_decimal_point, text)
    return _THOUSANDS.sub(lambda m: re.sub(r"[,\s]", "", m.group()), text)


# One number with a comma in it, the comma as many write the decimal point: `0,471`, `22,63`,
# `2,06 s`. Three digits after a comma group thousands (`1,000`) unless the number starts with
# a 0 (`0,670`), which no grouping does.
_DECIMAL_COMMA = re.compile(r"(?<![\w.,])([-+−]?\d+),(\d+)(?![\d,]|\.\d)")


def _decimal_point(match: re.Match[str]) -> str:
    whole, fraction = match.groups()
    if len(fraction) == 3 and whole.lstrip("-+−") not in {"0", ""}:
        return match.group()
    return f"{whole}.{fraction}"


def _value(text: str) -> tuple[Any, float]:
    return _evaluate_number(text, None)


def _miss(value: float, expected: float, tolerance: Tolerance) -> str:
    precision = tolerance.precision
    if precision is not None:
        step = 2 * precision.half_step(expected)
        if abs(value - expected) <= NEAR_MISS_STEPS * step:
            return (
                f"right idea, but {precision.words()} it is {precision.rounded(expected)}, "
                f"not {_format(value)}"
            )
        return f"{_format(value)} is not {precision.rounded(expected)} ({precision.words()})"
    return f"{_format(value)} is not within {tolerance.allowed(expected):.3g} of the answer"


def _format(value: float) -> str:
    return f"{value:.6g}"
