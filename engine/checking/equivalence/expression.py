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

import functools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.checking.equivalence.asked import judge_label, without_counted_noun
from engine.checking.equivalence.domain import Domain, declare_domain, is_kronecker_delta
from engine.checking.reading.notation import (
    names_used,
    normalise,
    refuse_final_exclamation,
    uses_factorials,
)
from engine.checking.reading.python_spelling import rewrite
from engine.checking.reading.safe_ast import Vocabulary, check_size, parse_tree
from engine.checking.reading.spoken import read_spoken
from engine.checking.reading.statement import (
    has_words,
    is_plain_number,
    number_word,
    offered_answers,
    split_chain,
    trailing_group,
)
from engine.checking.reading.to_sympy import build
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict, graded_as_offered

Aliases = Mapping[str, Sequence[str]]

# `simplify` is the one step without a time bound: it is tried only on expressions this small
# (operations, nesting depth, largest exponent); see `_tame`.
SIMPLIFY_LIMIT = 40
SIMPLIFY_DEPTH = 6
SIMPLIFY_EXPONENT = 10
# `d_k/2 (T ≫ d_k)`: a bracket stating a condition is a remark, not a factor.
_RELATION_SIGNS = re.compile(r"[≫≪<>≥≤→≠]|!=")
_BIG_O = re.compile(r"O\s*\((.*)\)", re.DOTALL)
# A number with two decimal points, `22.6.3` or `0..471`: a slip, not a product.
_TWO_POINTS = re.compile(r"\d*\.\d*\.\d+")
_INDEXED = re.compile(r"(?<![\w.])([A-Za-z])\[\s*([A-Za-z0-9])\s*\]")
# `np.exp(s)[i]`: an entry of a function applied entry by entry is the function of the entry.
_INDEXED_CALL = re.compile(
    r"(?<![\w.])((?:(?:np|numpy)\s*\.\s*)?(?:exp|log|sqrt))\s*\(\s*([A-Za-z])\s*\)"
    r"\s*\[\s*([A-Za-z0-9])\s*\]"
)
# `[i == j]`, `[i = j]` (Iverson's bracket), `(i == j)`: 1 when i = j, the Kronecker delta.
_IVERSON = re.compile(r"[\[(]\s*([a-z])\s*==?\s*([a-z])\s*[\])]")


def _indexed_name(base: str, index: str, vocabulary: Vocabulary) -> str:
    """`s_i` for the entry i of s, when the question uses that name; empty otherwise."""
    name = f"{base}_{index}"
    return name if name in vocabulary.symbols else ""


def _indexed(match: re.Match[str], vocabulary: Vocabulary) -> str:
    name = f"{match.group(1)}_{match.group(2)}"
    return name if name in vocabulary.symbols else match.group()


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
    question: str = "",
    context: Sequence[str] = (),
) -> Verdict:
    """Grade `answer` against the bank's `expected` formula.

    `positive`, `integer` and `noncommutative` (matrix) name the symbols with those properties,
    and `ranges` gives scalar symbols an interval (low, high) to be checked on, such as (0, 1)
    for a probability; `mistakes` pairs a known wrong answer with the feedback to give when the
    learner's answer is equivalent to it. A symbol `delta_ij` is the Kronecker delta.

    A mistake may be equal in value to the answer only through the Kronecker delta
    (`p_j (δ_ij − p_i)` for `p_i (δ_ij − p_j)`): its author asks for one form. Such a mistake is
    matched by form first, reading δ_ij as an ordinary symbol, and only then is the answer
    judged by value. The answer may be a chain (`Var(q·k) = d_k`, `2T²d_k/(8T²+8Td_k) = ...`):
    its last link is the answer, every other readable link must equal it, and a left side that
    names a quantity must name the one `question` asks for. `context` holds author text whose
    symbols the answer may use too (the rest of a cloze formula). Raises BankError when
    `expected`, a mistake or a range cannot be read.
    """
    if offered_answers(answer) is not None:  # `8 or 64`: each answer offered is judged
        return graded_as_offered(
            answer,
            lambda one: check_expression(
                one, expected, aliases=aliases, positive=positive, integer=integer,
                noncommutative=noncommutative, mistakes=mistakes, tolerance=tolerance,
                ranges=ranges, question=question, context=context,
            ),
        )  # fmt: skip
    aliases = aliases or {}
    declared = {"positive": set(positive), "integer": set(integer), "matrices": set(noncommutative)}
    known = set(aliases).union(*declared.values())
    for author_text in [expected, *(wrong for wrong, _ in mistakes)]:
        _refuse_unknown_functions(author_text, known, aliases)
        known |= names_used(
            author_text, symbols=known, aliases=aliases, matrices=declared["matrices"]
        )
    known |= question_symbols(question)
    for author_text in context:  # the rest of a formula the answer is part of
        try:
            known |= names_used(
                author_text, symbols=known, aliases=aliases, matrices=declared["matrices"]
            )
        except AnswerError:
            continue
    domain = declare_domain(
        positive=declared["positive"], integer=declared["integer"], ranges=ranges
    )
    vocabulary = Vocabulary(
        symbols=frozenset(known),
        positive=domain.positive,
        integer=domain.integer,
        matrices=frozenset(declared["matrices"]),
        ranges=domain.ranges,
        families=_families(known, aliases),
    )
    equation = _equation_sides(expected)
    if equation is not None:
        return _check_equation(answer, equation, vocabulary, aliases, mistakes)
    target = _read_author(expected, vocabulary, aliases)
    # Read every listed mistake now, so that an unreadable one is reported whatever is answered.
    known_mistakes = [
        (_read_author(wrong, vocabulary, aliases), message) for wrong, message in mistakes
    ]
    factorials = any(uses_factorials(text) for text in [expected, *(w for w, _ in mistakes)])
    vocabulary = _learner_limits(expected, vocabulary, aliases)
    try:
        check_size(answer)
        refuse_final_exclamation(answer, factorials=factorials)
        answer = _defined_maximum(answer, question, vocabulary)
        rewritten = rewrite(answer)
        links, label_problem, rounded = _answer_links(rewritten.text, vocabulary, aliases, question)
        given = _read_answer(links[-1], vocabulary, aliases, question)
        _refuse_division_by_zero(given)
    except AnswerError as error:
        right = None
        if "is not a known name" in str(error):
            right = _right_whatever_the_new_names(answer, target, vocabulary, aliases, tolerance)
        if right is not None:
            return Verdict(correct=True, interpreted_as=pretty(right), feedback="correct", score=1)
        return Verdict(correct=False, valid=False, feedback=str(error))
    equal = _stated_equal(question, target)
    given = _off_the_diagonal(_as_stated(given, equal), question)
    shown = pretty(given)
    verdict = _judge(given, target, known_mistakes, vocabulary, tolerance)
    if not verdict.correct and _LEADING_TERM.search(question) and _same_leading_term(given, target):
        # `T^2 (2 d_k - 1)`, the exact count, where the question asks for the leading term.
        feedback = "correct: its leading term is the one asked for"
        verdict = Verdict(correct=True, interpreted_as=shown, feedback=feedback, score=1.0)
    if rounded is not None:
        # `√512 ≈ 22.6`: the exact link is the answer when it is right, and the rounded value
        # must be that link to the digits it shows; otherwise the rounded value is the answer.
        if verdict.correct:
            problem = _rounding_problem(given, links[-1], rounded)
            if problem:
                return Verdict(correct=False, interpreted_as=shown, feedback=problem)
        else:
            links = [*links, rounded]
            try:
                given = _read_link(rounded, vocabulary, aliases)
            except AnswerError as error:  # pragma: no cover - a plain number reads
                return Verdict(correct=False, valid=False, feedback=str(error))
            shown = pretty(given)
            verdict = _judge(given, target, known_mistakes, vocabulary, tolerance)
    if label_problem:
        return Verdict(correct=False, interpreted_as=shown, feedback=label_problem)
    if verdict.correct:
        for link in links[:-1]:
            try:
                step = _read_link(link, vocabulary, aliases)
            except AnswerError:
                continue  # working in words: not checked
            step = _off_the_diagonal(_as_stated(step, equal), question)  # as the answer is
            if _states_a_moment(step):
                continue  # `Var(q·k)/d_k`: the quantity restated, its value not known here
            if not equivalent(step, target, vocabulary, tolerance=tolerance):
                feedback = f"a step of the chain does not hold: `{link}` is not `{links[-1]}`"
                return Verdict(correct=False, interpreted_as=shown, feedback=feedback)
    elif rewritten.notes:
        return Verdict(
            correct=False,
            interpreted_as=shown,
            feedback="; ".join([*rewritten.notes, verdict.feedback]),
        )
    return verdict


MAX_LEADING_OPS = 60
MAX_LEADING_POWER = 6
_LEADING_TERM = re.compile(r"\bleading\s+(?:term|order)\b", re.IGNORECASE)


def _same_leading_term(given: Any, target: Any) -> bool:
    """Whether two polynomials have the same terms of highest total degree (`2T²d_k − T²` and
    `2T²d_k`): what a question that asks for the leading term wants."""
    import sympy as sp

    names = sorted(given.free_symbols | target.free_symbols, key=str)
    if not names or not all(name.is_commutative for name in names):
        return False
    for expr in (given, target):  # expanding must stay cheap: `(a + b)^90` would not
        powers = [p.exp for p in expr.atoms(sp.Pow) if p.exp.is_Number]
        if sp.count_ops(expr) > MAX_LEADING_OPS or any(abs(e) > MAX_LEADING_POWER for e in powers):
            return False
    scale = sp.Dummy("t", positive=True)
    try:
        leading = []
        for expr in (given, target):
            scaled = sp.expand(expr.subs({n: n * scale for n in names}, simultaneous=True))
            poly = sp.Poly(scaled, scale)
            leading.append((poly.degree(), poly.LC()))
    except (sp.PolynomialError, sp.GeneratorsNeeded, TypeError, ValueError):
        return False
    (given_degree, given_lead), (target_degree, target_lead) = leading
    return given_degree == target_degree > 0 and sp.expand(given_lead - target_lead) == 0


def _families(known: Iterable[str], aliases: Aliases) -> frozenset[str]:
    """The indexed families an answer may name any member of: `s` when the bank's answer uses
    s_j. A declared symbol such as d_k is a name of its own, not a member of a family d."""
    return frozenset(
        match.group(1)
        for name in known
        if name not in aliases and (match := _FAMILY_MEMBER.fullmatch(name))
    )


_FAMILY_MEMBER = re.compile(r"([A-Za-z]+)_[ijklmn]")


def _judge(
    given: Any,
    target: Any,
    known_mistakes: list[tuple[Any, str]],
    vocabulary: Vocabulary,
    tolerance: float,
) -> Verdict:
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


# Single letters of a question's prose that are no symbols: the article, and `e.g.`, `i.e.`.
_PROSE_LETTERS = frozenset({"a"})


def question_symbols(question: str) -> set[str]:
    """The symbols the text of a question names: `T` and `i` in "positions 1, 2, …, T ... the
    query at position i". An answer that uses one where it does not belong is readable and
    wrong (`T - i + 1` keys); a name the question never mentions (`d_q`) is a slip, and the
    learner is asked again."""
    from engine.checking.reading.notation import tokenise
    from engine.checking.reading.safe_ast import is_symbol_like

    try:
        tokens = [t for t in tokenise(question) if t.kind != "space"]
    except AnswerError:
        return set()
    found = set()
    for at, token in enumerate(tokens):
        before = tokens[at - 1].text if at > 0 else ""
        after = tokens[at + 1].text if at + 1 < len(tokens) else ""
        if (
            token.kind == "name"
            and is_symbol_like(token.text)
            and token.text not in _PROSE_LETTERS
            and before not in {"^", "**", "."}  # K^T, K.T, Q.shape: no symbols
            and after not in {".", "("}  # e.g., f(x)
            and not (token.text == "R" and after == "^")  # ℝ^d_k, the real vectors
        ):
            found.add(token.text)
    return found


def _sets_apart(token: Any) -> bool:
    """Whether `token` can stand next to a plain equation in prose: a comma, a bracket, a full
    stop or question mark, or a word."""
    return token.kind in {"comma", "name"} or token.text in {"(", ")", ".", "?", ":", ";"}


def question_equalities(question: str) -> list[set[str]]:
    """Symbols the question states to be equal: "with T_q = T_k = T and d_v = d_k" gives
    {T_q, T_k, T} and {d_v, d_k}. Only plain equalities of symbols count, not definitions
    such as `S = Q Kᵀ / √d_k` or values such as `d_k = 64`."""
    from engine.checking.reading.notation import tokenise
    from engine.checking.reading.safe_ast import is_symbol_like

    # `s.max(...)`: a dot between names is an attribute, an operator here, not a full stop.
    question = re.sub(r"(?<=[\w)\]])\.(?=[A-Za-z_])", "@", question)
    try:
        tokens = [t for t in tokenise(question) if t.kind != "space"]
    except AnswerError:
        return []

    def symbol(at: int) -> bool:
        return (
            0 <= at < len(tokens) and tokens[at].kind == "name" and is_symbol_like(tokens[at].text)
        )

    groups: list[set[str]] = []
    at = 0
    while at < len(tokens):
        run = [at]
        while symbol(run[-1]) and run[-1] + 2 < len(tokens) and tokens[run[-1] + 1].text == "=":
            run.append(run[-1] + 2)
        end = run[-1] + 1
        plain = (
            len(run) > 1
            and all(symbol(i) for i in run)
            and (at == 0 or _sets_apart(tokens[at - 1]))
            and (end == len(tokens) or (_sets_apart(tokens[end]) and not symbol(end)))
        )
        if plain:
            groups.append({tokens[i].text for i in run})
        at = run[-1] + 1
    return groups


def _stated_equal(question: str, target: Any) -> dict[str, Any]:
    """For each symbol the question equates to one the expected answer uses, that symbol."""
    if not question:
        return {}
    used = {str(symbol): symbol for symbol in getattr(target, "free_symbols", ())}
    equal: dict[str, Any] = {}
    for group in question_equalities(question):
        kept = [name for name in group if name in used]
        if len(kept) == 1:
            equal |= {name: used[kept[0]] for name in group if name != kept[0]}
    return equal


def _as_stated(expr: Any, equal: dict[str, Any]) -> Any:
    """`expr` with the symbols the question equates written as the expected answer's own:
    `2T²d_k + 2T²d_v` is 4T²d_k where the question says d_v = d_k."""
    if not equal:
        return expr
    swaps = {s: equal[str(s)] for s in expr.free_symbols if str(s) in equal}
    return expr.xreplace(swaps) if swaps else expr


def _answer_links(
    text: str, vocabulary: Vocabulary, aliases: Aliases, question: str
) -> tuple[list[str], str, str | None]:
    """The links of the answer's chain, without its left side, what is wrong with that left
    side (empty when nothing is), and a rounded value stated last (`√512 ≈ 22.6`), which is
    then not among the links."""
    chain = split_chain(text, colon=False)
    links = list(chain.links)
    rounded = None
    if chain.rounded and len(links) > 1 and is_plain_number(links[-1]):
        rounded = links.pop()
    elif chain.rounded and len(links) > 1 and is_plain_number(links[-2]):
        rounded = links.pop(-2)  # `22.6 ≈ √512`
    if len(links) < 2:
        return links, "", rounded
    label = judge_label(links[0], question)
    if label.judgement != "unknown":
        return links[1:], label.message, rounded
    try:
        _read_link(links[0], vocabulary, aliases)
    except AnswerError:
        return links[1:], "", rounded  # a label the question does not mention: `FLOPs = ...`
    return links, "", rounded


def _rounding_problem(exact: Any, link: str, rounded: str) -> str:
    """What is wrong with `link ≈ rounded` (empty when it holds or cannot be checked)."""
    from engine.checking.equivalence.numeric import Undefined, evaluate

    if exact.free_symbols:
        return ""  # a formula ≈ a number: the number depends on values the answer leaves open
    try:
        value = complex(evaluate(exact, {})).real
        typed = float(rounded.replace("−", "-"))
    except (Undefined, TypeError, ValueError, OverflowError):
        return ""
    if agrees_at_shown_digits(value, typed, rounded, rounded=True):
        return ""
    return f"`{link} ≈ {rounded}` does not hold: {link} is {value:.6g}"


def agrees_at_shown_digits(
    exact: float, value: float, typed: str, *, rounded: bool = False
) -> bool:
    """Whether `value`, typed as `typed`, is `exact` to the digits `typed` shows.

    Working done with rounded numbers (e^0.577) may be off in the last digit or so. A whole
    number stated as a rounded value (`√512 ≈ 23`) shows no decimals; one that working in
    brackets explains (`8 (√64)`) must be exact.
    """
    plain = typed.strip().lstrip("+-−")
    mantissa, _, power = plain.lower().partition("e")
    if is_plain_number(plain) and ("." in mantissa or rounded):
        # `4.5e-5` shows one decimal of its mantissa: it holds to ±0.05e-5.
        decimals = len(mantissa.split(".")[1].rstrip("%")) if "." in mantissa else 0
        scale = 10.0 ** int(power) if power.lstrip("+-").isdigit() and len(power) < 5 else 1.0
        allowed = max(0.5 * 10.0**-decimals * scale * (1 + 1e-9), 2e-3 * abs(value))
        return abs(exact - value) <= allowed
    return math.isclose(exact, value, rel_tol=1e-6, abs_tol=1e-12)


def _read_answer(text: str, vocabulary: Vocabulary, aliases: Aliases, question: str) -> Any:
    """The last link: as it is, or, when that cannot be read, without the words after it that
    say what it counts (`i keys`, `i keys (1 through i)`, `T(T + d_v) floats`)."""
    try:
        return _read_link(text, vocabulary, aliases)
    except AnswerError:
        shorter = text
        remark = trailing_group(shorter)
        if remark is not None and has_words(remark[1], vocabulary.symbols):
            shorter = remark[0]
        shorter = without_counted_noun(shorter, question)
        if shorter == text:
            raise
        return _read_link(shorter, vocabulary, aliases)


def _read_link(text: str, vocabulary: Vocabulary, aliases: Aliases) -> Any:
    """One link of a chain; a bracketed remark in words after it (`0 (by symmetry)`) is
    ignored, and a number may be a word (`zero`)."""
    text = number_word(text)
    worked = _with_working(text, vocabulary, aliases)
    if worked is not None:
        return worked
    big_o = _BIG_O.fullmatch(text.strip())
    if big_o:  # O(4T²d_k): the leading term, as the question asks
        text = big_o.group(1)
    try:
        return read_expression(text, vocabulary, aliases=aliases)
    except AnswerError:
        group = trailing_group(text)
        known = frozenset(vocabulary.symbols) | frozenset(aliases)
        if group is not None and (
            has_words(group[1], known)
            or _RELATION_SIGNS.search(group[1])
            or group[1].startswith(("=", "≈"))  # `1 (= d_k/d_k)`: working, as a remark
            # `p_i(1 - p_i) (δ_ii = 1)`: an equation is never a factor (`𝟙[i=j]` may be one)
            or "=" in split_chain(group[1]).relations
        ):
            return read_expression(number_word(group[0]), vocabulary, aliases=aliases)
        head = _without_unit(text)
        if head is None:
            raise
        return read_expression(head, vocabulary, aliases=aliases)


def _with_working(text: str, vocabulary: Vocabulary, aliases: Aliases) -> Any:
    """`8 (2 cubed)`, `3 (= 6/2)`: a number, a space, and the same number worked out in a
    bracket is that number, not their product; None for any other text."""
    group = trailing_group(text)
    if group is None or not is_plain_number(group[0]):
        return None
    if not re.match(re.escape(group[0]) + r"\s+\(", text.strip()):
        return None
    try:
        head = read_expression(group[0], vocabulary, aliases=aliases)
        working = read_expression(group[1], vocabulary, aliases=aliases)
    except AnswerError:
        return None
    return head if _as_numbers(head, working) is not None and equivalent(head, working) else None


def _without_unit(text: str) -> str | None:
    """`T d_k / (4 (d_k + T)) FLOP/byte` -> the formula: a unit after a formula is a label."""
    from engine.checking.equivalence.units import TRAILING_UNIT, known_unit

    match = TRAILING_UNIT.search(text)
    if match is None or match.start() == 0 or not re.search(r"[)\w]\s*$", text[: match.start()]):
        return None
    unit = match.group(1).strip()
    if len(unit) < 2 or not known_unit(unit):
        return None
    return text[: match.start()]


_CALLED_NAME = re.compile(r"(?<![\w.\\])([A-Za-z][A-Za-z0-9]+)\(")


def _refuse_unknown_functions(text: str, known: set[str], aliases: Aliases) -> None:
    """A bank answer that calls a function this checker does not know is an author error:
    `cos(2*x)` must not be read as the product cos·2·x. (Raises BankError.)"""
    from engine.checking.reading.notation import CASELESS_FUNCTIONS
    from engine.checking.reading.safe_ast import FUNCTION_ALIASES, FUNCTION_NAMES

    spellings = set(known) | {s for names in aliases.values() for s in names}
    for match in _CALLED_NAME.finditer(text):
        name = match.group(1)
        if (
            name in FUNCTION_NAMES
            or name in FUNCTION_ALIASES
            or name.lower() in CASELESS_FUNCTIONS
            or name in spellings
            or name in {"KroneckerDelta"}
        ):
            continue
        raise BankError(
            [
                f"`{text}` calls `{name}(...)`, which is not a function the checker knows "
                f"(known: {', '.join(sorted(FUNCTION_NAMES))}); a product needs a space or `*`"
            ]
        )


def _states_a_moment(expr: Any) -> bool:
    """Whether `expr` holds a mean or a variance, `E[...]` or `Var(...)`, whose value the
    checker does not know: a link that restates the question in other terms."""
    from sympy.core.function import AppliedUndef

    return any(call.func.__name__ in {"E", "Var"} for call in expr.atoms(AppliedUndef))


def _refuse_division_by_zero(expr: Any) -> None:
    """`1/0` or `x/0` has no value to grade (∞ and -∞ are values; ComplexInfinity is not)."""
    import sympy

    if expr.has(sympy.zoo, sympy.nan):
        raise AnswerError("could not read this: it divides by zero, which has no value")


_UNEQUAL_INDICES = re.compile(r"(?<![\w])([a-z])\s*(?:≠|!=|\\neq?(?![A-Za-z]))\s*([a-z])(?!\w)")


def _off_the_diagonal(given: Any, question: str) -> Any:
    """`p_i (δ_ij − p_j)` answers a question that states i ≠ j: there δ_ij is 0."""
    unequal = {frozenset(pair) for pair in _UNEQUAL_INDICES.findall(question)}
    zero = {
        symbol: 0
        for symbol in given.free_symbols
        if is_kronecker_delta(str(symbol))
        and frozenset(re.findall(r"[a-z]", str(symbol).split("_", 1)[-1])) in unequal
    }
    return given.subs(zero) if zero else given


def _has_kronecker(*expressions: Any) -> bool:
    return any(
        is_kronecker_delta(str(symbol)) for expr in expressions for symbol in expr.free_symbols
    )


# `m, the largest of the scores`, `m = the maximum of the scores`: a name the question defines
# as the maximum of an indexed family.
_MAXIMUM_DEFINED = re.compile(
    r"\b([A-Za-z])\s*(?:,|=|is|:)\s*(?:the\s+)?(?:largest|maximum|greatest|biggest|max)\b"
    r"(?:\s+(?:of|over))?(?:\s+(?:the|all))?\s+(?:scores?|values?|entries|inputs?)\b",
    re.IGNORECASE,
)
_SUBSCRIPT = r"(?:_\{?\w\}?|[ᵢⱼₖₗₘₙ])"


def _defined_maximum(answer: str, question: str, vocabulary: Vocabulary) -> str:
    """`answer` with the maximum of a family written as the name the question gives it:
    `max(s)`, `max_k s_k`, `maxₖ(sₖ)`, `max(s_1, ..., s_n)` are m where the question says
    "m, the largest of the scores"."""
    if "max" not in answer:
        return answer
    defined = _MAXIMUM_DEFINED.search(question)
    if defined is None or defined.group(1) not in vocabulary.symbols:
        return answer
    for family in vocabulary.families:
        member = rf"{re.escape(family)}{_SUBSCRIPT}?"
        maximum = re.compile(
            rf"\bmax{_SUBSCRIPT}?\s*(?:\(\s*{member}(?:\s*,\s*(?:\.\.\.|…|{member}))*\s*\)"
            rf"|{member}(?![\w(]))"
        )
        answer = maximum.sub(defined.group(1), answer)
    return answer


# A `*` as typed (not `**`): beside `@`, NumPy's entry-by-entry product.
_TYPED_STAR = re.compile(r"(?<!\*)\*(?!\*)")


def read_expression(text: str, vocabulary: Vocabulary, *, aliases: Aliases | None = None) -> Any:
    """Read typed text into a SymPy expression, or raise AnswerError saying why not."""
    check_size(text)  # before any rewriting, so hostile text costs nothing
    star_typed = _TYPED_STAR.search(text) is not None
    text = read_spoken(text)
    # `s[i]` is s_i when the question uses s_i: indexing written as code.
    text = _INDEXED_CALL.sub(
        lambda m: (
            f"{m.group(1)}({_indexed_name(m.group(2), m.group(3), vocabulary)})"
            if _indexed_name(m.group(2), m.group(3), vocabulary)
            else m.group()
        ),
        text,
    )
    text = _INDEXED.sub(lambda m: _indexed(m, vocabulary), text)
    if "delta_ij" in vocabulary.symbols or "delta_ji" in vocabulary.symbols:
        text = _IVERSON.sub(lambda m: f"KroneckerDelta({m.group(1)}, {m.group(2)})", text)
    doubled = _TWO_POINTS.search(text)
    if doubled:
        raise AnswerError(
            f"could not read this: `{doubled.group()}` has two decimal points; type one number"
        )
    try:
        plain = normalise(
            rewrite(text).text,
            symbols=vocabulary.symbols,
            aliases=aliases,
            matrices=vocabulary.matrices,
            families=vocabulary.families,
        )
        tree = parse_tree(plain, vocabulary)
    except AnswerError:
        raise
    except (Exception, RecursionError):  # a last line of defence for the learner
        raise AnswerError("could not read this: it is not an expression") from None
    expr = build(tree, vocabulary, star_typed=star_typed)
    if isinstance(expr, tuple):  # pragma: no cover - parse_tree refuses tuples here
        raise AnswerError("could not read this: type one expression")
    return expr


def _right_whatever_the_new_names(
    answer: str, target: Any, vocabulary: Vocabulary, aliases: Aliases, tolerance: float
) -> Any:
    """An answer that uses names the question does not (`sin²x + cos²x` for 1, `x^0` for 1),
    read, if it equals the expected answer whatever those names stand for: such an answer is
    right. None otherwise: it stays ungraded, told which names the question uses."""
    try:
        check_size(answer)
        text = rewrite(answer).text
        if len(split_chain(text, colon=False).links) != 1:
            return None
        extra = names_used(
            text, symbols=vocabulary.symbols, aliases=aliases, matrices=vocabulary.matrices
        )
        wider = replace(vocabulary, symbols=vocabulary.symbols | extra)
        if wider.symbols == vocabulary.symbols:
            return None
        given = _read_link(text, wider, aliases)
        _refuse_division_by_zero(given)
    except AnswerError:
        return None
    return given if equivalent(given, target, wider, tolerance=tolerance) else None


def _equation_sides(expected: str) -> tuple[str, str] | None:
    """The two sides of an expected answer that is an equation (`y = 2x + 1`), or None."""
    chain = split_chain(expected, colon=False)
    if len(chain.links) != 2 or chain.relations != ("=",) or not all(chain.links):
        return None
    return chain.links[0], chain.links[1]


def _check_equation(
    answer: str,
    sides: tuple[str, str],
    vocabulary: Vocabulary,
    aliases: Aliases,
    mistakes: Sequence[tuple[str, str]],
) -> Verdict:
    """An equation is answered by an equation with the same solutions: its two sides differ
    by a nonzero multiple of the expected sides' difference (`y = 2x + 1`, `2x - y = -1`).
    A listed mistake is an equation too."""

    def difference(equation: tuple[str, str]) -> Any:
        left, right = (_read_author(side, vocabulary, aliases) for side in equation)
        return left - right

    target = difference(sides)
    known_mistakes = []
    for wrong, message in mistakes:
        wrong_sides = _equation_sides(wrong)
        if wrong_sides is None:
            raise BankError([f"the mistake `{wrong}` must be an equation, as the answer is"])
        known_mistakes.append((difference(wrong_sides), message))
    try:
        check_size(answer)
        chain = split_chain(rewrite(answer).text, colon=False)
        if chain.relations != ("=",):
            given = _read_link(chain.links[-1], vocabulary, aliases)
            return Verdict(
                correct=False,
                interpreted_as=pretty(given),
                feedback="the answer is an equation: type both of its sides, as `... = ...`",
            )
        given_left, given_right = (_read_link(link, vocabulary, aliases) for link in chain.links)
        _refuse_division_by_zero(given_left - given_right)
    except AnswerError as error:
        return Verdict(correct=False, valid=False, feedback=str(error))
    shown = f"{pretty(given_left)} = {pretty(given_right)}"
    given = given_left - given_right
    if _proportional(given, target, vocabulary) or _proportional(
        _numerator(given), _numerator(target), vocabulary
    ):
        return Verdict(correct=True, interpreted_as=shown, feedback="correct", score=1.0)
    for wrong, message in known_mistakes:
        if _proportional(given_left - given_right, wrong, vocabulary):
            return Verdict(correct=False, interpreted_as=shown, feedback=message)
    return Verdict(
        correct=False, interpreted_as=shown, feedback="not equivalent to the expected equation"
    )


def _numerator(difference: Any) -> Any:
    """The numerator of an equation's two sides' difference over one denominator: `1/x + 1/y = 2`
    holds where x + y − 2xy = 0, as `y = x/(2x − 1)` does (a denominator is never 0 where an
    equation is defined, so clearing it changes no solution)."""
    import sympy

    if not difference.is_commutative or sympy.count_ops(difference) > MAX_LEADING_OPS:
        return difference
    return sympy.fraction(sympy.together(difference))[0]


def _proportional(given: Any, target: Any, vocabulary: Vocabulary) -> bool:
    """Whether `given` is a nonzero constant times `target` (both zero counts too)."""
    import numpy as np
    import sympy

    from engine.checking.equivalence.numeric import Undefined, evaluate

    if equivalent(target, target * 0, vocabulary) or equivalent(given, given * 0, vocabulary):
        return equivalent(given, target, vocabulary)
    domain = Domain(
        positive=vocabulary.positive, integer=vocabulary.integer, ranges=vocabulary.ranges
    )
    sampler = domain.sampler(sorted(given.free_symbols | target.free_symbols, key=str))
    rng = np.random.default_rng(0)
    ratios: list[complex] = []
    for attempt in range(32):
        try:
            values = sampler.sample(rng, attempt)
            ratio = complex(evaluate(given, values)) / complex(evaluate(target, values))
        except (Undefined, ZeroDivisionError, TypeError):
            continue
        if abs(ratio) < 1e-12:
            return False
        ratios.append(ratio)
        if len(ratios) == 2:
            break
    if not ratios:
        return False
    if len(ratios) == 2 and abs(ratios[1] - ratios[0]) > 1e-6 * abs(ratios[0]):
        return False  # the ratio changes from point to point: not a constant multiple
    return equivalent(given, target * sympy.nsimplify(ratios[0], rational=True), vocabulary)


def _learner_limits(expected: str, vocabulary: Vocabulary, aliases: Aliases) -> Vocabulary:
    """The limits on a learner's exponents, digits and degree, which keep hostile input cheap,
    grow to an author's when the expected answer itself needs them: what the bank states as the
    answer can always be typed (`(x-a)^150` for `(a-x)^150`)."""
    spellings = tuple((name, tuple(written)) for name, written in aliases.items())
    if _beyond_learner_limits(expected, vocabulary, spellings):
        return replace(vocabulary, author=True)
    return vocabulary


@functools.lru_cache(maxsize=1024)
def _beyond_learner_limits(
    expected: str, vocabulary: Vocabulary, spellings: tuple[tuple[str, tuple[str, ...]], ...]
) -> bool:
    """Whether the expected answer cannot be read within a learner's limits, worked out once
    per item (every answer graded asked it again)."""
    try:
        read_expression(expected, vocabulary, aliases=dict(spellings))
    except AnswerError:
        return True
    return False


def _read_author(text: str, vocabulary: Vocabulary, aliases: Aliases) -> Any:
    """The bank author's expression, read once per item: grading every answer to a card reads
    the same expected answer and listed mistakes, so the reading is remembered (SymPy
    expressions are immutable, and the key holds everything the reading depends on)."""
    spellings = tuple((name, tuple(written)) for name, written in aliases.items())
    return _read_author_once(text, vocabulary, spellings)


@functools.lru_cache(maxsize=1024)
def _read_author_once(
    text: str, vocabulary: Vocabulary, spellings: tuple[tuple[str, tuple[str, ...]], ...]
) -> Any:
    try:
        return read_expression(text, replace(vocabulary, author=True), aliases=dict(spellings))
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

    from engine.checking.equivalence.numeric import equivalent_at_random_points

    vocabulary = vocabulary or Vocabulary()
    try:
        if a == b:  # the same expression, even one with no value at a point such as ∞
            return True
        difference = a - b
        if difference == 0:
            return True
        numbers = _as_numbers(a, b)
        if numbers is not None:
            # Two numbers: relative agreement only, so that 0 is never 1e-12 (the absolute floor
            # of the sampled test is for values computed at random points, not for constants).
            left, right = numbers
            return abs(left - right) <= tolerance * max(abs(left), abs(right))
        domain = Domain(
            positive=vocabulary.positive,
            integer=vocabulary.integer,
            ranges=vocabulary.ranges,
            kronecker=kronecker,
        )
        verdict = equivalent_at_random_points(a, b, tolerance=tolerance, domain=domain)
        if verdict is False and _has_branches(a) and _has_branches(b):
            # log(xy) and log x + log y, (x²)^(1/3) and x^(2/3) differ only where a logarithm
            # or a root leaves the positive reals; an examiner means them for positive values.
            names = frozenset(str(s) for s in difference.free_symbols if s.is_commutative)
            positive = replace(domain, positive=domain.positive | names)
            verdict = equivalent_at_random_points(a, b, tolerance=tolerance, domain=positive)
        if verdict is not None:
            return verdict
        # simplify proves equality for every value of every symbol, so it never errs on the
        # side of a domain; it is only too slow on some expressions.
        if not _tame(difference):
            return False
        return bool(sympy.simplify(difference) == 0)
    except (Exception, RecursionError):  # SymPy failing to decide means "not shown equal"
        return False


def _as_numbers(a: Any, b: Any) -> tuple[complex, complex] | None:
    """The values of two SymPy numbers, finite; None when either has a symbol or no finite
    complex value (then the sampled test decides)."""
    if not (getattr(a, "is_number", False) and getattr(b, "is_number", False)):
        return None
    try:
        left, right = complex(a.evalf()), complex(b.evalf())
    except (TypeError, ValueError, OverflowError):
        return None
    finite = all(math.isfinite(part) for z in (left, right) for part in (z.real, z.imag))
    return (left, right) if finite else None


def _has_branches(expr: Any) -> bool:
    """Whether `expr` holds a logarithm, a fractional power or an inverse function: the
    functions whose values on negative arguments depend on a choice of branch."""
    import sympy

    branchy = (sympy.log, sympy.asin, sympy.acos, sympy.acosh, sympy.atanh)
    return bool(expr.atoms(*branchy)) or any(
        not power.exp.is_integer for power in expr.atoms(sympy.Pow)
    )


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
    text = _rewrite_calls(text, "sqrt", lambda inner: f"√{inner}")
    return _over_index(text)


_BIG_OPERATOR_CALL = re.compile(r"(?<![\w.])(sum|prod)\(")


def _over_index(text: str) -> str:
    """`sum(exp(s_j), j)` as `Σ_j exp(s_j)`, `prod(p_j, j)` as `Π_j p_j`; others unchanged."""
    position = 0
    while match := _BIG_OPERATOR_CALL.search(text, position):
        depth, end = 0, len(text)
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        body, comma, index = text[match.end() : end].rpartition(", ")
        if depth or not comma or not re.fullmatch(r"[a-z]", index):
            position = match.end()
            continue
        simple = re.fullmatch(r"[\w√]+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?", body)
        sign = "Σ" if match.group(1) == "sum" else "Π"
        shown = f"{sign}_{index} {body if simple else f'({body})'}"
        text = text[: match.start()] + shown + text[end + 1 :]
        position = match.start() + len(shown)
    return text


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
    from sympy.core.function import AppliedUndef

    if any(call.func.__name__ == "hadamard" for call in given.atoms(AppliedUndef)):
        hint += "; next to @, * multiplies entry by entry, as in NumPy: a matrix product is @"
    return hint


class NotRealError(AnswerError):
    """A well-formed expression whose value is not a real number (`1/i`, `sqrt(-1)`)."""


def evaluate_number(text: str, *, aliases: Aliases | None = None) -> float:
    """The value of a typed constant such as `22.6`, `sqrt(512)`, `√512`, `2/3` or `1e-3`.

    Raises AnswerError when the text is not a finite real number.
    """
    return _evaluate_number(text, aliases)[1]


def _evaluate_number(text: str, aliases: Aliases | None) -> tuple[Any, float]:
    from engine.checking.equivalence.numeric import Undefined, evaluate

    expr = read_expression(text, Vocabulary(), aliases=aliases)
    if expr.is_infinite and expr.is_extended_real:  # -inf, -∞: a readable (wrong) number
        return expr, float(expr)
    try:
        value = complex(evaluate(expr, {}))
    except (Undefined, TypeError):
        raise AnswerError("could not read this: it has no finite value") from None
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
        raise NotRealError("could not read this: it is not a real number")
    return expr, value.real
