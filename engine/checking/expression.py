"""Judge a typed formula or number by its meaning, not its spelling.

`check_expression` reads the learner's answer and the bank's answer with the same safe reader
(`notation` then `safe_ast`) and decides whether they are equal: first cheaply (SymPy's automatic
canonical form), then by evaluating both at random points of the declared domain (`numeric`), and
only when that cannot decide by `sympy.simplify`, on small rational expressions only. The
numeric test runs before `simplify` because it is fast and bounded on any input, while `simplify`
can run for minutes on tiny hostile expressions such as nested exponentials. An answer is judged
correct only if the symbolic test or every numeric point agrees. SymPy and NumPy are imported
inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.checking.domain import Domain, declare_domain, is_kronecker_delta
from engine.checking.notation import names_used, normalise
from engine.checking.safe_ast import Vocabulary, build, check_size, parse_tree
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

Aliases = Mapping[str, Sequence[str]]

# `simplify` is the one step without a time bound: it is tried only on expressions this small
# (operations, nesting depth, largest exponent); see `_tame`.
SIMPLIFY_LIMIT = 40
SIMPLIFY_DEPTH = 6
SIMPLIFY_EXPONENT = 10
# The longest interpretation shown to a learner, in characters.
PRETTY_LIMIT = 300


def check_expression(
    answer: str,
    expected: str,
    *,
    aliases: Aliases | None = None,
    positive: Iterable[str] = (),
    integer: Iterable[str] = (),
    noncommutative: Iterable[str] = (),
    mistakes: Sequence[tuple[str, str]] = (),
    tolerance: float = 1e-9,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> Verdict:
    """Grade `answer` against the bank's `expected` formula.

    `positive`, `integer` and `noncommutative` (matrix) name the symbols with those properties,
    and `ranges` gives scalar symbols an interval (low, high) to be checked on, such as (0, 1)
    for a probability; `mistakes` pairs a known wrong answer with the feedback to give when the
    learner's answer is equivalent to it. A symbol `delta_ij` is the Kronecker delta.

    A mistake may be equal in value to the answer only through the Kronecker delta
    (`p_j (δ_ij − p_i)` for `p_i (δ_ij − p_j)`): its author asks for one form. Such a mistake is
    matched by form first, reading δ_ij as an ordinary symbol, and only then is the answer
    judged by value. Raises BankError when `expected`, a mistake or a range cannot be read.
    """
    aliases = aliases or {}
    declared = {"positive": set(positive), "integer": set(integer), "matrices": set(noncommutative)}
    known = set(aliases).union(*declared.values())
    for author_text in [expected, *(wrong for wrong, _ in mistakes)]:
        known |= names_used(
            author_text, symbols=known, aliases=aliases, matrices=declared["matrices"]
        )
    domain = declare_domain(
        positive=declared["positive"], integer=declared["integer"], ranges=ranges
    )
    vocabulary = Vocabulary(
        symbols=frozenset(known),
        positive=domain.positive,
        integer=domain.integer,
        matrices=frozenset(declared["matrices"]),
        ranges=domain.ranges,
    )
    target = _read_author(expected, vocabulary, aliases)
    # Read every listed mistake now, so that an unreadable one is reported whatever is answered.
    known_mistakes = [
        (_read_author(wrong, vocabulary, aliases), message) for wrong, message in mistakes
    ]
    try:
        given = read_expression(answer, vocabulary, aliases=aliases)
    except AnswerError as error:
        return Verdict(correct=False, valid=False, feedback=str(error))
    shown = pretty(given)
    # By form first (δ_ij an ordinary symbol), then by value; without deltas the two agree.
    rounds = [False, True] if _has_kronecker(given, target) else [True]
    for kronecker in rounds:
        if equivalent(given, target, vocabulary, tolerance=tolerance, kronecker=kronecker):
            return Verdict(correct=True, interpreted_as=shown, feedback="correct", score=1.0)
        for wrong, message in known_mistakes:
            if equivalent(given, wrong, vocabulary, tolerance=tolerance, kronecker=kronecker):
                return Verdict(correct=False, interpreted_as=shown, feedback=message)
    return Verdict(correct=False, interpreted_as=shown, feedback=_wrong_hint(given, target))


def _has_kronecker(*expressions: Any) -> bool:
    return any(
        is_kronecker_delta(str(symbol)) for expr in expressions for symbol in expr.free_symbols
    )


def read_expression(text: str, vocabulary: Vocabulary, *, aliases: Aliases | None = None) -> Any:
    """Read typed text into a SymPy expression, or raise AnswerError saying why not."""
    check_size(text)  # before any rewriting, so hostile text costs nothing
    try:
        plain = normalise(
            text, symbols=vocabulary.symbols, aliases=aliases, matrices=vocabulary.matrices
        )
        tree = parse_tree(plain, vocabulary)
    except AnswerError:
        raise
    except (Exception, RecursionError):  # a last line of defence for the learner
        raise AnswerError("could not read this: it is not an expression") from None
    expr = build(tree, vocabulary)
    if isinstance(expr, tuple):  # pragma: no cover - parse_tree refuses tuples here
        raise AnswerError("could not read this: type one expression")
    return expr


def _read_author(text: str, vocabulary: Vocabulary, aliases: Aliases) -> Any:
    try:
        return read_expression(text, vocabulary, aliases=aliases)
    except AnswerError as error:
        raise BankError([f"the expression `{text}` cannot be read: {error}"]) from None


def equivalent(
    a: Any,
    b: Any,
    vocabulary: Vocabulary | None = None,
    *,
    tolerance: float = 1e-9,
    kronecker: bool = True,
) -> bool:
    """Whether two SymPy expressions are equal; never True without a symbolic or numeric proof.

    The numeric test draws each symbol from the domain `vocabulary` declares for it, and reads
    `delta_ij` as the Kronecker delta unless `kronecker` is False. An undecided comparison (too
    few points where both sides are defined, and too large to simplify) is False.
    """
    import sympy

    from engine.checking.numeric import equivalent_at_random_points

    vocabulary = vocabulary or Vocabulary()
    try:
        difference = a - b
        if difference == 0:
            return True
        domain = Domain(
            positive=vocabulary.positive,
            integer=vocabulary.integer,
            ranges=vocabulary.ranges,
            kronecker=kronecker,
        )
        verdict = equivalent_at_random_points(a, b, tolerance=tolerance, domain=domain)
        if verdict is not None:
            return verdict
        # simplify proves equality for every value of every symbol, so it never errs on the
        # side of a domain; it is only too slow on some expressions.
        if not _tame(difference):
            return False
        return bool(sympy.simplify(difference) == 0)
    except (Exception, RecursionError):  # SymPy failing to decide means "not shown equal"
        return False


def _tame(expr: Any) -> bool:
    """Whether `simplify` is safe to try on `expr`.

    Even tiny expressions can keep it busy for minutes (`exp(exp(exp(100)))` makes it evaluate a
    number with 10**43 digits), so it is tried only on small rational expressions in symbols:
    sums, products and powers with small rational exponents.
    """
    import sympy

    if sympy.count_ops(expr) > SIMPLIFY_LIMIT:
        return False
    level, frontier = 0, [expr]
    while frontier:
        level += 1
        if level > SIMPLIFY_DEPTH:
            return False
        for node in frontier:
            if isinstance(node, sympy.Pow):
                if not (node.exp.is_Rational and abs(node.exp) <= SIMPLIFY_EXPONENT):
                    return False
            elif not (
                node.is_Symbol or node.is_Rational or isinstance(node, sympy.Add | sympy.Mul)
            ):
                return False
        frontier = [argument for node in frontier for argument in node.args]
    return True


def pretty(expr: Any) -> str:
    """A readable one-line form: softmax(Q·Kᵀ/√d_k)·V."""
    import sympy

    try:
        text = sympy.sstr(expr)
    except (Exception, RecursionError):  # e.g. ordering terms that compare with NaN
        return "(cannot be shown)"
    if len(text) > PRETTY_LIMIT:  # a learner needs the gist, not a page of SymPy output
        text = text[:PRETTY_LIMIT] + "…"
    text = text.replace("**", "^").replace("*", "·")
    text = _rewrite_calls(text, "transpose", lambda inner: f"{inner}ᵀ")
    return _rewrite_calls(text, "sqrt", lambda inner: f"√{inner}")


def _rewrite_calls(text: str, name: str, form: Callable[[str], str]) -> str:
    """Rewrite every `name(argument)` as `form(argument)`, bracketing compound arguments."""
    pattern = re.compile(rf"(?<![\w.]){name}\(")
    while match := pattern.search(text):
        depth, end = 0, len(text)
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        inner = text[match.end() : end]
        if not re.fullmatch(r"\w+", inner):
            inner = f"({inner})"
        text = text[: match.start()] + form(inner) + text[end + 1 :]
    return text


def _wrong_hint(given: Any, target: Any) -> str:
    missing = sorted(str(s) for s in target.free_symbols - given.free_symbols)
    extra = sorted(str(s) for s in given.free_symbols - target.free_symbols)
    hint = "not equivalent to the expected answer"
    if missing:
        hint += f"; your answer does not use {', '.join(missing)}"
    if extra:
        hint += f"; the expected answer does not use {', '.join(extra)}"
    if target.is_commutative != given.is_commutative:
        hint += "; the answer should be a " + ("number" if target.is_commutative else "matrix")
    return hint


def evaluate_number(text: str, *, aliases: Aliases | None = None) -> float:
    """The value of a typed constant such as `22.6`, `sqrt(512)`, `√512`, `2/3` or `1e-3`.

    Raises AnswerError when the text is not a finite real number.
    """
    return _evaluate_number(text, aliases)[1]


def _evaluate_number(text: str, aliases: Aliases | None) -> tuple[Any, float]:
    from engine.checking.numeric import Undefined, evaluate

    expr = read_expression(text, Vocabulary(), aliases=aliases)
    try:
        value = complex(evaluate(expr, {}))
    except (Undefined, TypeError):
        raise AnswerError("could not read this: it has no finite value") from None
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
        raise AnswerError("could not read this: it is not a real number")
    return expr, value.real


def check_number(
    answer: str,
    expected: float,
    *,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
) -> Verdict:
    """Grade a typed number against `expected`, within `abs_tol` or `rel_tol` (either suffices).

    With neither given, the answer must match to about nine significant digits. A learner may
    show the exact value and its decimal, `16√2 ≈ 22.6` or `√512 = 22.63`, or mark a rounded
    value, `≈ 22.6`: then every part must be within the tolerance.
    """
    try:
        check_size(answer)  # before splitting, so hostile text costs nothing
        parts = _APPROXIMATE.split(_APPROXIMATELY.sub("", answer, count=1))
        read = [_evaluate_number(part, None) for part in parts]
    except AnswerError as error:
        return Verdict(correct=False, valid=False, feedback=str(error))
    # A decimal is read as an exact fraction (22.6 -> 113/5); show it as the decimal it was.
    shown = " ≈ ".join(
        _format(value) if expr.is_Rational else f"{pretty(expr)} = {_format(value)}"
        for expr, value in read
    )
    allowed = max(abs_tol or 0.0, (rel_tol or 0.0) * abs(expected))
    if abs_tol is None and rel_tol is None:
        allowed = 1e-9 * max(1.0, abs(expected))
    off = [value for _, value in read if not abs(value - expected) <= allowed]
    if not off:
        precise = all(
            math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12) for _, value in read
        )
        feedback = (
            "correct" if precise else f"correct to the stated precision; exactly {expected:.6g}"
        )
        return Verdict(correct=True, interpreted_as=shown, feedback=feedback, score=1.0)
    return Verdict(
        correct=False,
        interpreted_as=shown,
        feedback=f"{_format(off[0])} is not within {allowed:.3g} of the answer",
    )


# `≈ 22.6`, `~22.6`, `about 22.6`: a rounded value, marked as such.
_APPROXIMATELY = re.compile(r"^\s*(?:≈|~=?|about\b|approx(?:\.|imately\b)?)\s*", re.IGNORECASE)
# `16√2 ≈ 22.6`, `√512 = 22.63`: the same value written twice.
_APPROXIMATE = re.compile(r"≈|~=|(?<![=<>!])=(?!=)")


def _format(value: float) -> str:
    return f"{value:.6g}"
