"""Read and grade vectors and small matrices of numbers: `[0.659, 0.242, 0.099]`, `[[3, 4]]`.

Learners type the softmax of a few scores, or a small attention output, the way they would
write it on paper or copy it from NumPy: `[0.66, 0.24, 0.10]`, `(0.66, 0.24, 0.10)`,
`[[1, 0], [0, 1]]`, `[1 0; 0 1]`, `[[1. 0.] [0. 1.]]`. Square brackets always make a list;
round ones do when they hold a comma. Every entry is a number or a constant expression read by
the same safe reader as every other answer (`exp(2)/(exp(2)+e+exp(0.1))`), so nothing typed is
ever executed. Grading compares entry by entry within a tolerance, gives partial credit for the
entries that are right, and names the ones that are not.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from engine.checking.equivalence.number import NEAR_MISS_STEPS, Precision
from engine.checking.reading.safe_ast import IGNORABLE_CHARS, MAX_DEPTH, check_size
from engine.checking.reading.statement import has_words, split_chain, trailing_group
from engine.checking.reading.typography import plain_latex_layout
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

# A typed 8 x 8 matrix of four-digit decimals needs about 500 characters.
MAX_LENGTH = 4000
MAX_ENTRIES = 256
MAX_NESTING = 3
# How many wrong entries the feedback names before it summarises the rest.
NAMED_ENTRIES = 4
TRANSPOSED = "the matrix is transposed: rows and columns are swapped"

# A list of floats, or of such lists (rows of a matrix), as deep as MAX_NESTING.
Numbers: TypeAlias = list[Any]

_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_IDENTITY = re.compile(
    r"(?:I_?\{?([1-8₁-₈])\}?|(?:(?:np|numpy)\s*\.\s*)?(?:eye|identity)\s*\(\s*([1-8])\s*\))"
)
# `I`, `the identity`: the identity matrix, of the size the question asks for.
_BARE_IDENTITY = re.compile(r"\s*(?:I|(?:the\s+)?identity(?:\s+matrix)?)\s*", re.IGNORECASE)
MAX_IDENTITY = 8
# `one-hot: [0, 0, 1]`, `row 1: [1, 1, 0]`: a label in words before the list.
_LABEL = re.compile(r"^\s*[A-Za-z][\w '-]{0,40}?\s*:\s*(?=[\[(])")
_ROUNDED = re.compile(r"^\s*(?:≈|~|\\approx\s*)")
_PERCENT = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+))\s*%")
_PLAIN_TEXT = str.maketrans({"−": "-", "–": "-", "—": "-"} | dict.fromkeys(IGNORABLE_CHARS, None))
_OPEN, _CLOSE = "([{", ")]}"
_BARE_SEMICOLON_LIST = re.compile(
    r"\s*[-+]?\d+(?:[.,]\d+)?(?:\s*;\s*[-+]?\d+(?:[.,]\d+)?)+\s*;?\s*"
)
_NOT_A_NUMBER = re.compile(r"(?:(?:np|numpy|math)\s*\.\s*)?nan", re.IGNORECASE)
# `\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}`: a matrix as LaTeX typesets it.
_LATEX_MATRIX = re.compile(
    r"\\begin\s*\{\s*([pbBvV]?matrix|array)\s*\}(?:\s*\{[^{}]*\})?(.*?)\\end\s*\{\s*\1\s*\}",
    re.DOTALL,
)
# A comma between digits as the decimal point: `0,66`, `-0,25`, `4,5e-5`.
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
_ARRAY_CALL = re.compile(r"(?:(?:np|numpy)\s*\.\s*)?(?:array|asarray)\s*\((.*)\)", re.DOTALL)


def parse_vector(text: str) -> Numbers:
    """The numbers of a typed vector or matrix, as a (nested) list of floats.

    A matrix is a list of rows of equal length. Raises AnswerError when the text is not a list
    of numbers, saying which entry could not be read.
    """
    check_size(text, max_length=MAX_LENGTH, max_depth=MAX_DEPTH)
    plain = _latex_matrices(text.translate(_PLAIN_TEXT).strip())
    wrapped = _ARRAY_CALL.fullmatch(plain)
    if wrapped:  # NumPy's own print-out: array([0.66, 0.24, 0.1]) or np.array([...])
        plain = wrapped.group(1).strip()
    constant = _CONSTANT_ARRAY.fullmatch(plain)
    if constant:  # `np.ones((2, 2))`, `np.zeros(3)`: an array of one number
        return _constant_array(constant)
    scaled = _scaled_list(plain)
    if scaled is not None:  # `np.array([1, 2, 3]) / 6`: a list times or over a number
        return scaled
    identity = _IDENTITY.fullmatch(plain)
    if identity:  # `I₂`, `np.eye(2)`: the identity matrix, as the prompts name it
        size = unicodedata.digit(identity.group(1) or identity.group(2))
        return [[1.0 if i == j else 0.0 for j in range(size)] for i in range(size)]
    if not plain:
        raise AnswerError("could not read this: the answer is empty")
    reader = _Reader()
    try:
        numbers = reader.top(plain)
    except AnswerError:
        raise
    except (Exception, RecursionError):  # a last line of defence for the learner
        raise AnswerError("could not read this: it is not a list of numbers") from None
    _shape_of(numbers)  # refuses ragged rows
    return numbers


class _Reader:
    """Splits bracketed text into lists and reads each entry; counts entries as it goes."""

    def __init__(self) -> None:
        self.entries = 0

    def top(self, text: str) -> Numbers:
        value = self.read(text, nesting=0)
        if isinstance(value, float):
            return [value]  # a lone number is a vector of one; the shape check says the rest
        return value

    def read(self, text: str, nesting: int) -> float | Numbers:
        text = text.strip()
        if _is_group(text):
            inner = text[1:-1]
            if text[0] != "(" or _top_level(inner, ",;"):
                return self.items(inner, nesting + 1)
        elif nesting == 0 and _top_level(text, ",;"):
            return self.items(text, nesting + 1)  # `0.66, 0.24, 0.10` without brackets
        return self.entry(text)

    def items(self, inner: str, nesting: int) -> Numbers:
        if nesting > MAX_NESTING:
            raise AnswerError(
                f"could not read this: lists nest at most {MAX_NESTING} deep (a batch of matrices)"
            )
        if _top_level(inner, ";"):  # MATLAB rows: [1, 0; 0, 1] or [1 0; 0 1]
            rows = split_outside_brackets(inner, ";")
            if rows and not rows[-1].strip():
                rows.pop()
            # `[[1, 0]; [0, 1]]`: a row may keep its own brackets.
            return [
                self.items(row.strip()[1:-1] if _is_group(row.strip()) else row, nesting + 1)
                for row in rows
            ]
        if _top_level(inner, ","):
            parts = split_outside_brackets(inner, ",")
            if len(parts) > 1 and not parts[-1].strip():
                parts.pop()  # `(0.5,)` as in Python
        else:
            parts = _split_spaces(inner)
        if not any(part.strip() for part in parts):
            raise AnswerError("could not read this: a list has no numbers in it")
        return [self.read(part, nesting) for part in parts]

    def entry(self, text: str) -> float:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise AnswerError(f"could not read this: keep it under {MAX_ENTRIES} numbers")
        text = _ROUNDED.sub("", text)  # `≈0.09`, `~0.24`: a rounded entry
        if not text:
            raise AnswerError(f"could not read this: entry {self.entries} is missing")
        percent = _PERCENT.fullmatch(text)
        if percent:  # `66%`, as a share: 0.66
            return self.entry(percent.group(1)) / 100
        if _NOT_A_NUMBER.fullmatch(text):  # `[nan, nan]`: readable, and never a right entry
            return math.nan
        if _PLAIN_NUMBER.fullmatch(text):
            value = float(text)
            if not math.isfinite(value):
                raise AnswerError(f"could not read this: entry {self.entries} is too large")
            return value
        from engine.checking.equivalence.expression import evaluate_number

        try:
            return evaluate_number(text)
        except AnswerError as error:
            reason = str(error).removeprefix("could not read this: ")
            raise AnswerError(
                f"could not read this: entry {self.entries} (`{_clip(text)}`): {reason}"
            ) from None


# `np.ones((2, 2))`, `np.zeros(3)`, `np.full((2, 2), 0.5)`: NumPy's arrays of one number.
_CONSTANT_ARRAY = re.compile(
    r"(?:(?:np|numpy)\s*\.\s*)?(ones|zeros|full)\s*\(\s*(?:\(\s*([1-8])\s*(?:,\s*([1-8])\s*)?,?\s*\)"
    r"|([1-8]))\s*(?:,\s*([^(),]+?))?\s*\)"
)
# A list, or NumPy's array of one, times or over a number: `np.array([1, 2, 3]) / 6`.
_LIST_THEN_NUMBER = re.compile(r"(.*[\])])\s*([*/])\s*([^\[\]]+)", re.DOTALL)
_NUMBER_THEN_LIST = re.compile(
    r"([^\[\]]+?)\s*\*\s*((?:(?:np|numpy)\s*\.\s*)?(?:array\s*\()?\[.*)", re.DOTALL
)


def _constant_array(match: re.Match[str]) -> Numbers:
    from engine.checking.equivalence.expression import evaluate_number

    kind, rows, columns, length, fill = match.groups()
    if kind == "full":
        if fill is None:
            raise AnswerError("could not read this: np.full needs the number to fill with")
        value = evaluate_number(fill)
    elif fill is not None:
        raise AnswerError("could not read this: np.ones and np.zeros take only a shape")
    else:
        value = 1.0 if kind == "ones" else 0.0
    if length is not None:
        return [value] * int(length)
    if columns is None:
        return [value] * int(rows)
    return [[value] * int(columns) for _ in range(int(rows))]


def _scaled_list(text: str) -> Numbers | None:
    """The numbers of `list * c`, `list / c` or `c * list`; None when `text` is not one."""
    import numpy as np

    from engine.checking.equivalence.expression import evaluate_number

    after = _LIST_THEN_NUMBER.fullmatch(text)
    before = None if after else _NUMBER_THEN_LIST.fullmatch(text)
    if after is None and before is None:
        return None
    if after is not None:
        listed, sign, number = after.groups()
    else:
        assert before is not None
        number, listed = before.groups()
        sign = "*"
    if "[" not in listed:
        return None
    try:
        factor = evaluate_number(number)
        numbers = np.asarray(parse_vector(listed), dtype=float)
    except AnswerError:
        return None
    if sign == "/" and factor == 0:
        raise AnswerError("could not read this: it divides by zero")
    result = numbers / factor if sign == "/" else numbers * factor
    values: Numbers = result.tolist()
    return values


def _latex_matrices(text: str) -> str:
    """Each LaTeX matrix environment in `text` as a list of rows: `[[1, 0], [0, 1]]`."""
    if "\\begin" not in text:
        return text

    def as_rows(match: re.Match[str]) -> str:
        rows = [row for row in re.split(r"\\\\", match.group(2)) if row.strip()]
        return "[" + ", ".join("[" + ", ".join(row.split("&")) + "]" for row in rows) + "]"

    return _LATEX_MATRIX.sub(as_rows, text)


def decimal_comma_reading(text: str) -> str | None:
    """`text` read with the decimal comma: `[0,66; 0,24; 0,10]` or `[0,66, 0,24, 0,10]` as
    `[0.66, 0.24, 0.10]`. Where the comma is the decimal point, a semicolon, or else a comma
    followed by a space, separates the entries (and `[1; 1; 0]` is a list, not a column).
    None when the text has neither a semicolon nor a comma between digits, or separates its
    entries with bare commas only (`[0,0,1]`)."""
    if ";" in text:  # `[1; 1; 0]` too: semicolons separate the entries of a list
        return _DECIMAL_COMMA.sub(".", text).replace(";", ",")
    if not _DECIMAL_COMMA.search(text):
        return None
    if re.search(r",\s", text):
        return _DECIMAL_COMMA.sub(".", text)
    return None


def _is_group(text: str) -> bool:
    """Whether `text` is one bracketed group: `[1, 2]` but not `[1] [2]` or `(1)+(2)`."""
    if len(text) < 2 or text[0] not in _OPEN or text[-1] != _CLOSE[_OPEN.index(text[0])]:
        return False
    depth = 0
    for i, char in enumerate(text):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _top_level(text: str, separators: str) -> bool:
    depth = 0
    for char in text:
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif depth == 0 and char in separators:
            return True
    return False


def split_outside_brackets(text: str, separator: str) -> list[str]:
    """`a, (b, c), d` at `,` -> [`a`, ` (b, c)`, ` d`]: the parts between the separators that
    stand outside every bracket."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif depth == 0 and char == separator:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _split_spaces(text: str) -> list[str]:
    """NumPy's way of printing, `[0.66 0.24 0.1]` or `[[1 0] [0 1]]`, split at spaces.

    Only when every piece is a plain number or a bracketed group: `[1 - 2]` or `[2 sqrt(2)]`
    stays one entry, read as an expression.
    """
    pieces: list[str] = []
    depth, current = 0, ""
    for char in text:
        if char in _OPEN:
            if depth == 0 and current.strip() and not current.strip()[-1].isalpha():
                pieces.append(current)  # `[1 0][0 1]` or `[1 0] [0 1]`
                current = ""
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        if depth == 0 and char.isspace():
            if current.strip():
                pieces.append(current)
            current = ""
            continue
        current += char
    if current.strip():
        pieces.append(current)
    simple = all(_PLAIN_NUMBER.fullmatch(p.strip()) or _is_group(p.strip()) for p in pieces)
    return pieces if len(pieces) > 1 and simple else [text]


def _clip(text: str) -> str:
    text = " ".join(text.split())  # a newline or tab inside a quoted entry would break the line
    return text if len(text) <= 30 else text[:29] + "…"


def _shape_of(numbers: Any) -> tuple[int, ...]:
    """The shape of a nested list; raises AnswerError for rows of different lengths."""
    if isinstance(numbers, float):
        return ()
    shapes = [_shape_of(item) for item in numbers]
    if any(shape != shapes[0] for shape in shapes):
        lengths = sorted({shape[0] if shape else 1 for shape in shapes})
        if any(len(shape) != len(shapes[0]) for shape in shapes):
            raise AnswerError("could not read this: mix either numbers or rows in a list, not both")
        raise AnswerError(
            "could not read this: the rows have different lengths "
            f"({', '.join(str(n) for n in lengths)}); a matrix needs rows of equal length"
        )
    return (len(numbers), *shapes[0])


def check_vector(
    answer: str,
    expected: Sequence[Any],
    *,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    precision: Precision | None = None,
) -> Verdict:
    """Grade a typed vector or matrix against `expected`, a (nested) list of numbers.

    Each entry is right within `abs_tol` or `rel_tol` of its expected value (either suffices;
    with neither, to about nine significant digits). With a `precision` (N decimals or N
    significant figures, shown in the prompt) each entry must instead round to the expected one
    rounded that way (more digits are fine), as a single number must. A row `[3, 4]` answers a
    1 × 2 matrix `[[3, 4]]`: shapes that differ only by leading dimensions of length 1 are the
    same. The answer may be a chain, `softmax([1, 2, 3]) = [0.09, 0.24, 0.67]` or
    `0.7·[1, 0] + 0.3·[0, 1] ≈ [0.7, 0.3]`: its last link is the answer, and any other link that
    reads as a list must hold too. The score is the fraction of entries that are right. Raises
    BankError when `expected` is no rectangular list of numbers.
    """
    import numpy as np

    try:
        target = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        raise BankError([f"the expected value {expected!r} is not a list of numbers"]) from None
    if target.ndim == 0 or target.size == 0 or not np.all(np.isfinite(target)):
        raise BankError([f"the expected value {expected!r} is not a list of finite numbers"])
    tolerance = _Tolerance(abs_tol, rel_tol, precision)
    try:
        links = _links(answer)
        square = target.ndim == 2 and target.shape[0] == target.shape[1] <= MAX_IDENTITY
        if square and _BARE_IDENTITY.fullmatch(links[-1]):
            links[-1] = f"I_{target.shape[0]}"  # `= I`: the identity of the size asked for
        given = _fitting_reading(links[-1], target)
    except AnswerError as error:
        return Verdict(correct=False, valid=False, feedback=str(error))
    shown = format_numbers(given)
    for link in links[:-1]:
        step = _working(link)
        if step is not None and not (
            step.shape == target.shape and bool(tolerance.within(step, target).all())
        ):
            feedback = f"the step `{_clip(link)}` does not hold: it is {format_numbers(step)}"
            return Verdict(correct=False, interpreted_as=shown, feedback=feedback)
    if given.shape != target.shape:
        if given.size == target.size and _squeezed(given) == _squeezed(target):
            given = given.reshape(target.shape)
        else:
            feedback = f"expected {_describe(target.shape)}, not {_describe(given.shape)}"
            if _is_transposed(given, target, tolerance):
                feedback = TRANSPOSED
            return Verdict(correct=False, interpreted_as=shown, feedback=feedback)
    right = tolerance.within(given, target)
    if right.all():
        precise = np.allclose(given, target, rtol=1e-9, atol=1e-12)
        feedback = "correct" if precise else "correct to the stated precision"
        return Verdict(correct=True, interpreted_as=shown, feedback=feedback, score=1.0)
    score = float(right.mean())
    return Verdict(
        correct=False,
        interpreted_as=shown,
        feedback=_feedback(given, target, right, tolerance),
        score=score,
    )


def _fitting_reading(text: str, target: Any) -> Any:
    """The numbers of `text` as a reader fits them to the question: with the comma as the
    separator (`[1,0;0,1]`, `[0,0,1]`), or else, when that reading cannot be read or has the
    wrong shape, with the comma as the decimal point (`[0,66; 0,24; 0,10]`), if that fits."""
    import numpy as np

    try:
        given = np.asarray(parse_vector(text), dtype=float)
    except AnswerError:
        given, failure = None, sys.exc_info()[1]
    else:
        if _fits(given, target):
            return given
        failure = None
    other = decimal_comma_reading(text)
    if other is not None:
        try:
            decimal = np.asarray(parse_vector(other), dtype=float)
        except AnswerError:
            decimal = None
        if decimal is not None and _fits(decimal, target):
            return decimal
    if given is None:
        assert failure is not None
        raise failure
    return given


def _fits(given: Any, target: Any) -> bool:
    return bool(
        given.shape == target.shape
        or (given.size == target.size and _squeezed(given) == _squeezed(target))
    )


@dataclass(frozen=True)
class _Tolerance:
    abs_tol: float | None
    rel_tol: float | None
    precision: Precision | None

    def allowed(self, target: Any) -> Any:
        import numpy as np

        if self.precision is not None:
            steps = [self.precision.half_step(float(value)) for value in np.ravel(target)]
            return np.reshape(steps, np.shape(target)) * (1 + 1e-9) + 1e-15
        if self.abs_tol is None and self.rel_tol is None:
            return 1e-9 * np.maximum(1.0, np.abs(target))
        return np.maximum(self.abs_tol or 0.0, (self.rel_tol or 0.0) * np.abs(target))

    def within(self, given: Any, target: Any) -> Any:
        import numpy as np

        return np.abs(given - target) <= self.allowed(target)


def _links(answer: str) -> list[str]:
    """The links of a chain (`row 1 = [1, 1, 0]`, `≈ [0.09, 0.24, 0.67]`), the answer last."""
    check_size(answer, max_length=MAX_LENGTH, max_depth=MAX_DEPTH)
    answer = plain_latex_layout(answer)
    if _BARE_SEMICOLON_LIST.fullmatch(answer):  # `0,09; 0,24; 0,67`: a list, not statements
        answer = f"[{answer.strip()}]"
    links = list(split_chain(_LABEL.sub("", answer, count=1), colon=False).links)
    if not links[-1].strip():
        return [answer]
    # `[0.09, 0.24, 0.67] (rounded)`, `[0.19, -0.06] (= p ⊙ (g − p·g))`: a remark, or working
    # in symbols, after a list that reads on its own.
    remark = trailing_group(links[-1])
    if remark is not None and (has_words(remark[1]) or _working(remark[0]) is not None):
        links[-1] = remark[0]
    return links


def _working(link: str) -> Any:
    """A link before the answer as numbers, or None when it is a label or working in words
    (`softmax([2, 1, 0.1])`, `row 1`)."""
    import numpy as np

    try:
        return np.asarray(parse_vector(link), dtype=float)
    except AnswerError:
        return None


def _is_transposed(given: Any, target: Any, tolerance: _Tolerance) -> bool:
    return (
        given.ndim == 2
        and given.T.shape == target.shape
        and bool(tolerance.within(given.T, target).all())
    )


def _squeezed(array: Any) -> tuple[int, ...]:
    """The shape without leading dimensions of length 1: a row [[3, 4]] is the vector [3, 4].

    A column [[3], [4]] stays a column; it answers a row only as its transpose.
    """
    shape = tuple(array.shape)
    while len(shape) > 1 and shape[0] == 1:
        shape = shape[1:]
    return shape


def _describe(shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return f"{shape[0]} number{'s' if shape[0] != 1 else ''}"
    return "a " + " × ".join(str(n) for n in shape) + " matrix"


def _feedback(given: Any, target: Any, right: Any, tolerance: _Tolerance) -> str:
    import numpy as np

    wrong = [tuple(int(i) for i in index) for index in np.argwhere(~right)]
    total = int(right.size)
    precision = tolerance.precision
    if precision is not None:
        near = 2 * NEAR_MISS_STEPS * tolerance.allowed(target)
        if bool((np.abs(given - target) <= near).all()):
            entries = [
                f"entry {_where(index)} is {precision.rounded(float(target[index]))}"
                for index in wrong[:NAMED_ENTRIES]
            ]
            return f"right idea, but {precision.words()} " + ", ".join(entries)
    parts = [f"{total - len(wrong)} of {total} entries are right"]
    named = []
    for index in wrong[:NAMED_ENTRIES]:
        value, aim = float(given[index]), float(target[index])
        if math.isnan(value):
            named.append(f"entry {_where(index)} is NaN, not a number")
            continue
        side = "high" if value > aim else "low"
        named.append(f"entry {_where(index)} ({value:.4g}) is too {side}")
    if len(wrong) > NAMED_ENTRIES:
        named.append(f"{len(wrong) - NAMED_ENTRIES} more are off")
    parts.append(", ".join(named))
    if _is_transposed(given, target, tolerance):
        return TRANSPOSED
    ratio = _common_ratio(given, target)
    if ratio is not None:
        parts.append(f"every entry is {ratio:.4g} times the right one; check the normalisation")
    elif (
        target.ndim >= 1
        and np.allclose(target.sum(axis=-1), 1.0, atol=1e-6)
        and bool(np.isfinite(given).all())
    ):
        sums = given.sum(axis=-1)
        slack = max(tolerance.abs_tol or 0.0, float(np.max(tolerance.allowed(target))), 1e-6)
        if not np.allclose(sums, 1.0, atol=slack * target.shape[-1]):
            parts.append(
                f"your entries sum to {float(np.ravel(sums)[0]):.4g}, but weights sum to 1"
                if sums.size == 1
                else "some rows do not sum to 1, as weights must"
            )
    return "; ".join(parts)


def _where(index: tuple[int, ...]) -> str:
    return str(index[0] + 1) if len(index) == 1 else str(tuple(i + 1 for i in index))


def _common_ratio(given: Any, target: Any) -> float | None:
    """The factor c with given = c · target for every entry, if there is one (and c ≠ 1)."""
    import numpy as np

    if np.any(target == 0) or target.size < 2:
        return None
    ratios = given / target
    ratio = float(np.median(ratios))
    if abs(ratio - 1.0) < 1e-3 or not np.allclose(ratios, ratio, rtol=1e-3):
        return None
    return ratio


def format_numbers(array: Any) -> str:
    """A compact form of a vector or matrix: [0.659, 0.242, 0.0986] or [[1, 0], [0, 1]]."""
    if getattr(array, "ndim", 0) == 0:
        return f"{float(array):.6g}"
    return "[" + ", ".join(format_numbers(row) for row in array) + "]"
