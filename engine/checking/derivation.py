"""Check one step of a derivation against the line before it and the step the drill expects.

A step is the next right-hand side (`= 0`, or a bare expression), an equation `lhs = rhs`, or a
chain `a = b = c`. Every side is read with the safe reader (after `derivation_notation` has
rewritten E[...], Σ_a, q·k and ∂p_i/∂s_j) and reduced to a canonical value under the item's
`Assumptions` (`expectation`): E and Var of the random vectors become polynomials in the
dimension, and sums over indices of plain quantities (Σ_j e^{s_j}) stay sums. Two sides are equal
when SymPy shows it or they agree at random points (`expression.equivalent`); sums over an index,
derivatives and defined quantities such as p_i are compared after writing the sums out for a
small number of terms and every choice of the free indices. Nothing typed is ever executed, and
every failure becomes a verdict with a message for the learner.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.checking.derivation_notation import read_marker, rewrite_derivation, sum_marker
from engine.checking.expectation import (
    CONSTANT,
    CannotEvaluate,
    Lowering,
    Misconceptions,
    RandomModel,
    RandomPolynomial,
    display,
    indices_of,
)
from engine.checking.expression import equivalent, pretty
from engine.checking.notation import names_used, normalise
from engine.checking.safe_ast import Vocabulary, build, parse_tree
from engine.errors import AnswerError, BankError
from engine.verdict import Verdict

# Sums over an index and derivatives are compared with this many terms, for every choice of the
# free indices (so that both i = j and i ≠ j are tried).
CONCRETE_SIZES = (2, 3)
MAX_INDEX_CHOICES = 30
MAX_SIDES = 6
_MARKER_NAME = re.compile(r"zz(?:dot|sum|diff)_[A-Za-z0-9_]*")


@dataclass(frozen=True)
class Assumptions:
    """What a derivation may assume, and the names it uses.

    `normal_vectors` are independent vectors whose `dimension` components are i.i.d. N(0, 1),
    written with a `vector_indices` subscript (q_a, k_b). Other indices (`indices`, such as the
    softmax positions i, j, k) run over 1..`count`; a symbol such as `s_j` in `symbols` declares
    the whole family s_i, s_j, s_k. `definitions` give names a meaning: `X: q·k`, or for a family
    `p_i: e^{s_i}/Σ_k e^{s_k}` (which also defines p_j and p_k).
    """

    normal_vectors: tuple[str, ...] = ()
    dimension: str = "d_k"
    vector_indices: tuple[str, ...] = ("a", "b")
    indices: tuple[str, ...] = ()
    count: str = "n"
    symbols: tuple[str, ...] = ()
    positive: tuple[str, ...] = ()
    integer: tuple[str, ...] = ()
    matrices: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    definitions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BrokenLink:
    """One `=` that does not hold: the two sides as read and the values they reduce to."""

    left: str
    right: str
    left_value: str
    right_value: str
    from_previous_line: bool = False


@dataclass(frozen=True)
class StepVerdict:
    """What `check_step` concluded about one line.

    `valid`: every `=` holds and the line continues the previous one. `reaches_expected`: its
    last side equals the expected step (in closed form when the expected step is closed; True
    when nothing is expected). `checked` is False for a readable line the checker cannot reduce.
    `last_side` is the text to pass as `previous` for the next line.
    """

    readable: bool
    valid: bool
    reaches_expected: bool
    interpreted_as: str = ""
    message: str = ""
    broken: tuple[BrokenLink, ...] = ()
    value: str = ""
    last_side: str = ""
    rules: tuple[str, ...] = ()
    checked: bool = True

    @property
    def correct(self) -> bool:
        return self.valid and self.reaches_expected

    def to_verdict(self) -> Verdict:
        return Verdict(
            correct=self.correct,
            valid=self.readable,
            interpreted_as=self.interpreted_as,
            feedback=self.message,
            score=1.0 if self.correct else 0.0,
        )


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
    reader = StepReader(assumptions or Assumptions())
    try:
        before = reader.author_side(previous) if previous is not None else None
        target = reader.author_side(expected) if expected is not None else None
        known = [(reader.author_side(text), message) for text, message in mistakes]
    except (AnswerError, CannotEvaluate) as error:
        raise BankError([f"a derivation step cannot be read: {error}"]) from None
    try:
        sides = reader.learner_sides(step, continues=before is not None)
    except AnswerError as error:
        return StepVerdict(readable=False, valid=False, reaches_expected=False, message=str(error))
    except CannotEvaluate as error:
        return StepVerdict(
            readable=True,
            valid=False,
            reaches_expected=False,
            message=f"could not check this step: {error}",
            checked=False,
        )
    try:
        return judge(reader, before, sides, target, known, continuation=step.strip()[:1] == "=")
    except CannotEvaluate as error:
        return StepVerdict(
            readable=True,
            valid=False,
            reaches_expected=False,
            interpreted_as=" = ".join(side.shown for side in sides),
            message=f"could not check this step: {error}",
            checked=False,
        )
    except (Exception, RecursionError):  # a last line of defence: never a traceback
        return StepVerdict(
            readable=True,
            valid=False,
            reaches_expected=False,
            message="could not check this step; try writing it more simply",
            checked=False,
        )


@dataclass(frozen=True)
class Side:
    """One side of a step: its text, its expression, its reduced value and the rules used."""

    text: str
    expr: Any
    value: RandomPolynomial
    shown: str
    rules: frozenset[str]


class StepReader:
    """Reads and reduces the sides of steps under one set of assumptions."""

    def __init__(self, assumptions: Assumptions) -> None:
        self.assumptions = a = assumptions
        self.index_sizes = {i: a.dimension for i in a.vector_indices} | {
            i: a.count for i in a.indices
        }
        self.model = RandomModel(a.normal_vectors, a.dimension, self.index_sizes)
        self.families = self._families()
        self.aliases = self._aliases()
        self.rename = {
            spelling: name for name, spellings in self.aliases.items() for spelling in spellings
        }
        self.family_definitions: dict[str, tuple[str, Any]] = {}
        self.definitions: dict[str, Any] = {}
        self.symbols = self._declared_symbols()
        for text in a.definitions.values():
            self.symbols |= self._names_in(text)
        for name, text in a.definitions.items():
            family, index = self._family_of(name)
            try:
                expr = self.read(text)
            except AnswerError as error:
                raise BankError([f"the definition of {name} cannot be read: {error}"]) from None
            if family is not None and index is not None:
                self.family_definitions[family] = (index, expr)
            else:
                self.definitions[name] = expr

    # --- names ------------------------------------------------------------------------------

    def _family_of(self, name: str) -> tuple[str | None, str | None]:
        family, underscore, index = name.rpartition("_")
        if underscore and index in self.index_sizes:
            return family, index
        return None, None

    def _families(self) -> set[str]:
        names = [*self.assumptions.symbols, *self.assumptions.definitions]
        return {f for f, _ in map(self._family_of, names) if f is not None}

    def _aliases(self) -> dict[str, tuple[str, ...]]:
        """The declared spellings, with a family's spellings given for every index."""
        aliases: dict[str, tuple[str, ...]] = {}
        for name, spellings in self.assumptions.aliases.items():
            family, index = self._family_of(name)
            if family is None or index is None:
                aliases[name] = tuple(spellings)
                continue
            for other in self.index_sizes:
                aliases[f"{family}_{other}"] = tuple(
                    re.sub(rf"_{index}$", f"_{other}", spelling) for spelling in spellings
                )
        return aliases

    def _declared_symbols(self) -> set[str]:
        a = self.assumptions
        symbols = {a.dimension, a.count, *a.normal_vectors, *a.symbols, *a.aliases}
        symbols |= {f"{v}_{i}" for v in a.normal_vectors for i in a.vector_indices}
        symbols |= {f"{f}_{i}" for f in self.families for i in self.index_sizes}
        symbols |= {f"delta_{i}{j}" for i in self.index_sizes for j in self.index_sizes}
        symbols |= set(self.aliases)
        return {s for s in symbols if s}

    def _names_in(self, text: str) -> set[str]:
        try:
            rewritten = self._rewrite(text)
            return names_used(rewritten, symbols=self.symbols, aliases=self.aliases)
        except AnswerError:
            return set()

    def vocabulary(self, extra: set[str]) -> Vocabulary:
        a = self.assumptions
        return Vocabulary(
            symbols=frozenset(self.symbols | extra),
            positive=frozenset({a.dimension, a.count, *a.positive}),
            integer=frozenset({a.dimension, a.count, *a.integer}),
            matrices=frozenset(a.matrices),
        )

    # --- reading ----------------------------------------------------------------------------

    def _rewrite(self, text: str) -> str:
        a = self.assumptions
        quantities = set(self.definitions)
        quantities |= {f"{f}_{i}" for f in self.families for i in self.index_sizes}
        return rewrite_derivation(
            text,
            vectors=a.normal_vectors,
            indices=self.index_sizes,
            quantities=quantities,
            rename=self.rename,
        )

    def read(self, text: str, *, extra: set[str] | None = None) -> Any:
        """Read one side into SymPy, or raise AnswerError saying why not."""
        if found := _MARKER_NAME.search(text):
            raise AnswerError(f"could not read this: `{found.group(0)}` is not a known name")
        rewritten = self._rewrite(text)
        markers = set(_MARKER_NAME.findall(rewritten))
        vocabulary = self.vocabulary(markers | (extra or set()))
        try:
            plain = normalise(
                rewritten,
                symbols=vocabulary.symbols,
                aliases=self.aliases,
                matrices=vocabulary.matrices,
            )
            tree = parse_tree(plain, vocabulary)
        except AnswerError as error:
            raise AnswerError(_without_markers(str(error))) from None
        except (Exception, RecursionError):
            raise AnswerError("could not read this: it is not an expression") from None
        expr = build(tree, vocabulary)
        if isinstance(expr, tuple):
            raise AnswerError("could not read this: type one expression")
        return expr

    def side(self, text: str, expr: Any, misconceptions: Misconceptions | None = None) -> Side:
        lowering = Lowering(self.model, misconceptions, self.definitions)
        value = lowering.lower(expr)
        return Side(text.strip(), expr, value, self.show(expr), frozenset(lowering.used))

    def value_of(self, expr: Any, misconceptions: Misconceptions | None = None) -> Any:
        return Lowering(self.model, misconceptions, self.definitions).lower(expr)

    def author_side(self, text: str) -> Side:
        last = split_sides(text)[-1]
        if not last.strip():
            raise AnswerError(f"`{text}` has no expression after its last `=`")
        names = self._names_in(last)
        return self.side(last, self.read(last, extra=names))

    def learner_sides(self, step: str, *, continues: bool) -> list[Side]:
        if not step.strip():
            raise AnswerError("could not read this: the line is empty")
        texts = split_sides(step)
        if len(texts) > MAX_SIDES:
            raise AnswerError(f"could not read this: keep a line to at most {MAX_SIDES} sides")
        if not texts[0].strip() and len(texts) > 1:
            if not continues:
                raise AnswerError("could not read this: the first line cannot start with `=`")
            texts = texts[1:]
            if len(texts) == 1 and not texts[0].strip():
                raise AnswerError("could not read this: write an expression after `=`")
        sides: list[Side] = []
        for text in texts:
            if not text.strip():
                raise AnswerError("could not read this: an `=` needs an expression on each side")
            try:
                expr = self.read(text)
            except AnswerError as error:
                if len(texts) == 1:
                    raise
                raise AnswerError(f"{error} (in `{text.strip()}`)") from None
            sides.append(self.side(text, expr))
        return sides

    # --- comparing --------------------------------------------------------------------------

    def same(self, left: RandomPolynomial, right: RandomPolynomial) -> bool:
        import sympy

        zero = sympy.Integer(0)
        return all(
            self.equal_scalars(left.get(term, zero), right.get(term, zero))
            for term in set(left) | set(right)
        )

    def equal_scalars(self, a: Any, b: Any) -> bool:
        if a == b:
            return True
        vocabulary = self.vocabulary(set())
        if not (self._needs_terms(a) or self._needs_terms(b)):
            return equivalent(a, b, vocabulary)
        free = sorted(self._free_indices(a) | self._free_indices(b))
        for size in CONCRETE_SIZES:
            choices = itertools.islice(
                itertools.product(range(1, size + 1), repeat=len(free)), MAX_INDEX_CHOICES
            )
            for choice in choices:
                values = dict(zip(free, choice, strict=True))
                left = self.written_out(a, size, values)
                right = self.written_out(b, size, values)
                if not equivalent(left, right, vocabulary):
                    return False
        return True

    def _needs_terms(self, expr: Any) -> bool:
        import sympy

        for symbol in expr.free_symbols:
            marker = read_marker(str(symbol))
            family, _ = self._family_of(str(symbol))
            if (marker is not None and marker[0] != "dot") or family in self.family_definitions:
                return True
            if self._delta_indices(str(symbol)):
                return True
        return any(str(f.func) == "sum" for f in expr.atoms(sympy.Function))

    def _delta_indices(self, name: str) -> str:
        """`ij` for the Kronecker delta `delta_ij` of two indices, else an empty string."""
        family, _, letters = name.rpartition("_")
        if family == "delta" and len(letters) == 2 and set(letters) <= set(self.index_sizes):
            return letters
        return ""

    def _free_indices(self, expr: Any) -> set[str]:
        found: set[str] = set()
        for symbol in expr.free_symbols:
            name = str(symbol)
            marker = read_marker(name)
            if marker is not None and marker[0] == "derivative":
                for part in marker[1]:
                    found |= indices_of(part, self.index_sizes)
            elif marker is None:
                found |= indices_of(name, self.index_sizes)
        return found

    def written_out(self, expr: Any, size: int, values: Mapping[str, int], depth: int = 0) -> Any:
        """`expr` with every sum written out over 1..size and the free indices set to values."""
        import sympy

        if depth > 2 * len(self.assumptions.definitions) + 20:
            raise CannotEvaluate("a definition refers to itself")
        if expr.is_Symbol:
            return self._written_symbol(expr, size, values, depth)
        if not expr.args:
            return expr
        if str(expr.func) == "sum":
            marker = next(iter(s for s in expr.free_symbols if str(s).startswith("zzsum_")), None)
            if marker is None:
                raise CannotEvaluate("say which index a sum runs over, as in Σ_j e^{s_j}")
            index = str(marker)[len(sum_marker("")) :]
            body = expr.args[0] / marker
            return sympy.Add(
                *(
                    self.written_out(body, size, {**values, index: v}, depth + 1)
                    for v in range(1, size + 1)
                )
            )
        arguments = [self.written_out(arg, size, values, depth + 1) for arg in expr.args]
        return expr.func(*arguments)

    def _written_symbol(self, expr: Any, size: int, values: Mapping[str, int], depth: int) -> Any:
        import sympy

        name = str(expr)
        if name in {self.assumptions.count, self.assumptions.dimension}:
            return sympy.Integer(size)
        marker = read_marker(name)
        if marker is not None and marker[0] == "derivative":
            quantity, variable = marker[1]
            top = self.written_out(sympy.Symbol(quantity), size, values, depth + 1)
            by = self.written_out(sympy.Symbol(variable), size, values, depth + 1)
            if not by.is_Symbol:
                raise CannotEvaluate(f"cannot differentiate by {variable}")
            return sympy.diff(top, by)
        pair = self._delta_indices(name)
        if pair and all(index in values for index in pair):
            return sympy.Integer(int(values[pair[0]] == values[pair[1]]))
        family, index = self._family_of(name)
        if family is None or index is None:
            if name in self.definitions:
                return self.written_out(self.definitions[name], size, values, depth + 1)
            return expr
        if index not in values:
            return expr
        if family in self.family_definitions:
            own_index, definition = self.family_definitions[family]
            return self.written_out(definition, size, {own_index: values[index]}, depth + 1)
        return sympy.Symbol(f"{family}_{values[index]}")

    # --- showing ----------------------------------------------------------------------------

    def show(self, expr: Any) -> str:
        return _tidy(pretty(self._readable(expr)))

    def show_value(self, value: RandomPolynomial) -> str:
        return _tidy(pretty(self._readable(display(value, self.model))))

    def _readable(self, expr: Any) -> Any:
        import sympy

        def is_sum(node: Any) -> bool:
            return isinstance(node, sympy.Function) and str(node.func) == "sum"

        def as_sigma(node: Any) -> Any:
            argument = node.args[0]
            for symbol in argument.free_symbols:
                if str(symbol).startswith("zzsum_"):
                    index = str(symbol)[len(sum_marker("")) :]
                    return sympy.Function(f"Σ_{index}")(argument / symbol)
            return node

        try:
            expr = expr.replace(is_sum, as_sigma)
        except (Exception, RecursionError):
            return expr
        names: dict[Any, Any] = {}
        for symbol in expr.free_symbols:
            marker = read_marker(str(symbol))
            if marker is not None and marker[0] == "dot":
                names[symbol] = sympy.Symbol("(" + "·".join(marker[1]) + ")")
            elif marker is not None and marker[0] == "derivative":
                names[symbol] = sympy.Symbol(f"∂{marker[1][0]}/∂{marker[1][1]}")
            elif self._delta_indices(str(symbol)):
                names[symbol] = sympy.Symbol(f"δ_{self._delta_indices(str(symbol))}")
        return expr.xreplace(names)

    def is_closed(self, side: Side) -> bool:
        """Whether a side is a closed form: no E, Var, sum, derivative or random component."""
        import sympy

        if any(term != CONSTANT for term in side.value):
            return False
        calls = {str(f.func) for f in side.expr.atoms(sympy.Function)}
        names = {str(s) for s in side.expr.free_symbols}
        return not (
            calls & {"E", "Var", "sum"}
            or any(read_marker(n) for n in names)
            or any(self.model.component(n) for n in names)
        )


def split_sides(text: str) -> list[str]:
    """Split a line at every `=` outside brackets; `==`, `<=` and the like are refused."""
    sides, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "=" and depth == 0:
            before = text[position - 1] if position else ""
            after = text[position + 1 : position + 2]
            if before in {"<", ">", "!", "="} or after == "=":
                raise AnswerError("could not read this: join the sides of a step with `=` only")
            sides.append(text[start:position])
            start = position + 1
    sides.append(text[start:])
    return sides


def _tidy(text: str) -> str:
    """Drop the brackets around a dot product unless it is raised to a power: E(q·k)."""
    return re.sub(r"\(([A-Za-z0-9]+·[A-Za-z0-9]+)\)(?!\^)", r"\1", text)


def _without_markers(message: str) -> str:
    """Keep the reader's own marker names out of what a learner reads."""
    message = re.sub(r"zzsum_[A-Za-z0-9]+\s*\*?\s*", "", message)
    message = re.sub(
        r",\s*zz(?:dot|diff)_[A-Za-z0-9_]+|zz(?:dot|diff)_[A-Za-z0-9_]+,?\s*", "", message
    )
    return message


# --- judging a step ---------------------------------------------------------------------------

# Classic wrong rules, tried in order on the side a wrong step started from.
_MISCONCEPTIONS = (
    (
        Misconceptions(variance_ignores_constants=True),
        "a constant factor was dropped: Var(cX) = c² Var(X), so the factor still counts",
    ),
    (
        Misconceptions(variance_is_linear=True),
        "a constant comes out of a variance squared: Var(cX) = c² Var(X), "
        "so Var(X/√{d}) = Var(X)/{d}",
    ),
    (
        Misconceptions(variance_of_sum_as_copies=True),
        "the terms of the sum are independent, so their variances add: "
        "Var(Σ_a X_a) = Σ_a Var(X_a), which is {d} times Var(X_a), not {d}² times",
    ),
    (
        Misconceptions(nonzero_mean=True),
        "each component has mean 0, so E[q_a] E[k_a] = 0 · 0 = 0 (it is E[q_a²] that is 1)",
    ),
)

# What a valid step relied on, most telling first.
_NOTES = {
    "independence": "E[q_a k_a] = E[q_a] E[k_a] needs independence, which holds here",
    "Var(cX) = c² Var(X)": "a constant comes out of a variance squared: Var(cX) = c² Var(X)",
    "variance of a sum of independent terms": "variances of independent terms add",
    "Var(X) = E[X²] - E[X]²": "Var(X) = E[X²] − E[X]²",
    "zero mean": "E[q_a] = 0 for an N(0, 1) component",
    "unit variance": "E[q_a²] = 1 for an N(0, 1) component",
    "sum of a constant": "a sum of {d} equal terms is {d} times the term",
    "linearity of E": "E is linear",
    "dot product": "q·k = Σ_a q_a k_a",
}
MAX_NOTES = 2


def judge(
    reader: StepReader,
    before: Side | None,
    sides: list[Side],
    target: Side | None,
    known: list[tuple[Side, str]],
    *,
    continuation: bool = False,
) -> StepVerdict:
    """The verdict on `sides` (one line) after the line `before`, aiming at `target`."""
    chain = ([before] if before is not None else []) + sides
    broken: list[BrokenLink] = []
    message = ""
    rules: set[str] = set()
    for position, (left, right) in enumerate(itertools.pairwise(chain)):
        from_previous = before is not None and position == 0
        if reader.same(left.value, right.value):
            rules |= _rules_of_link(left, right)
            continue
        broken.append(
            BrokenLink(
                left=left.shown,
                right=right.shown,
                left_value=reader.show_value(left.value),
                right_value=reader.show_value(right.value),
                from_previous_line=from_previous,
            )
        )
        message = message or _explain(reader, left, right, from_previous, known)
    last = sides[-1]
    reaches, not_there = _reaches(reader, before, last, target, known)
    if not broken:
        message = not_there if not reaches else _correct(reader, rules)
    ordered = tuple(rule for rule in _NOTES if rule in rules)
    return StepVerdict(
        readable=True,
        valid=not broken,
        reaches_expected=reaches,
        interpreted_as=("= " if continuation else "") + " = ".join(s.shown for s in sides),
        message=message,
        broken=tuple(broken),
        value=reader.show_value(last.value),
        last_side=last.text,
        rules=ordered if not broken else (),
    )


def _rules_of_link(left: Side, right: Side) -> set[str]:
    """The rules one `=` relied on: those reducing the left side that the right side skips."""
    rules = set(left.rules - right.rules)
    written_out = "Var" in _calls(left.expr) and _calls(right.expr) & {"Var", "E"} == {"E"}
    if written_out:  # Var(X) written out as E[X²] - E[X]²
        rules = (rules - {"variance of a sum of independent terms"}) | {"Var(X) = E[X²] - E[X]²"}
    return rules


def _calls(expr: Any) -> set[str]:
    import sympy

    return {str(f.func) for f in expr.atoms(sympy.Function)}


def _correct(reader: StepReader, rules: set[str]) -> str:
    if "Var(X) = E[X²] - E[X]²" in rules:  # the definition, not the sum rule, was used
        rules = rules - {"variance of a sum of independent terms"}
    notes = [note for rule, note in _NOTES.items() if rule in rules][:MAX_NOTES]
    dimension = reader.assumptions.dimension
    return "correct" + ("; " + "; ".join(notes) if notes else "").replace("{d}", dimension)


def _reaches(
    reader: StepReader,
    before: Side | None,
    last: Side,
    target: Side | None,
    known: list[tuple[Side, str]],
) -> tuple[bool, str]:
    if target is None:
        return True, ""
    if not reader.same(last.value, target.value):
        hint = _diagnose(reader, target, last.value, known) if not reader.is_closed(target) else ""
        hint = hint or _known_mistake(reader, last.value, known)
        return False, (
            f"your line gives {reader.show_value(last.value)}, which is not what this step "
            "asks for" + (f"; {hint}" if hint else "")
        )
    if reader.is_closed(target) and not reader.is_closed(last):
        return False, "right so far; now work it out to a closed form (no E, Var, Σ or ∂ left)"
    if before is not None and last.expr == before.expr and target.expr != before.expr:
        return False, "this repeats the previous line; write the next step"
    return True, ""


def _explain(
    reader: StepReader, left: Side, right: Side, from_previous: bool, known: list[tuple[Side, str]]
) -> str:
    left_random = any(term != CONSTANT for term in left.value)
    right_random = any(term != CONSTANT for term in right.value)
    if left_random != right_random:
        random_side, fixed_side = (left, right) if left_random else (right, left)
        return (
            f"{random_side.shown} is a random quantity but {fixed_side.shown} is not: "
            "take E[...] or Var(...) of it"
        )
    start = (
        "this line does not follow from the previous one"
        if from_previous
        else "this step changes the value"
    )
    left_value = reader.show_value(left.value)
    right_value = reader.show_value(right.value)
    head = (
        f"{start}: {left.shown} is {left_value}, your line gives {right_value}"
        if left.shown != left_value
        else f"{start}: it should stay {left_value}, your line gives {right_value}"
    )
    hint = _known_mistake(reader, right.value, known) or _diagnose(reader, left, right.value, known)
    return head + (f"; {hint}" if hint else "")


def _known_mistake(
    reader: StepReader, given: RandomPolynomial, known: list[tuple[Side, str]]
) -> str:
    for wrong, message in known:
        if reader.same(given, wrong.value):
            return message
    return ""


def _diagnose(
    reader: StepReader, reference: Side, given: RandomPolynomial, known: list[tuple[Side, str]]
) -> str:
    """Which classic wrong rule turns `reference` into the value the learner gave, if any."""
    import sympy

    dimension = reader.assumptions.dimension
    for misconception, message in _MISCONCEPTIONS:
        try:
            wrong = reader.value_of(reference.expr, misconception)
        except CannotEvaluate:
            continue
        if reader.same(wrong, given) and not reader.same(wrong, reference.value):
            return message.replace("{d}", dimension)
    if set(given) | set(reference.value) <= {CONSTANT}:
        zero = sympy.Integer(0)
        right, wrong_value = reference.value.get(CONSTANT, zero), given.get(CONSTANT, zero)
        has_variance = any(str(f.func) == "Var" for f in reference.expr.atoms(sympy.Function))
        if has_variance and right != 0 and reader.equal_scalars(wrong_value, sympy.sqrt(right)):
            return "that is the standard deviation, √Var; the variance is its square"
        if right != 0 and wrong_value != 0 and sympy.count_ops(wrong_value / right) < 20:
            ratio = sympy.cancel(wrong_value / right)
            if ratio.free_symbols <= {sympy.Symbol(dimension)} and ratio != 1:
                return f"your value is {pretty(ratio)} times the right one"
    return ""
