"""Reading the sides of a derivation step under one set of assumptions, and showing them.

`StepReader` knows the names a derivation may use (the declared symbols, every member of an
indexed family such as s_i, s_j, the Kronecker deltas, the aliases), reads a side with the safe
reader after `notation` has rewritten E[...], Σ_a, q·k and ∂p_i/∂s_j, reduces it to a
canonical value (`expectation.Lowering`), and shows expressions and values the way a learner
writes them. Nothing typed is ever executed.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from engine.checking.derivation.derivative import Derivatives
from engine.checking.derivation.expectation import Lowering
from engine.checking.derivation.notation import (
    derivative_marker,
    name_of,
    read_marker,
    rewrite_derivation,
    sum_marker,
)
from engine.checking.derivation.random_polynomial import (
    CONSTANT,
    CannotEvaluate,
    Misconceptions,
    RandomModel,
    RandomPolynomial,
    at_normal,
    display,
    indices_of,
    polynomial_moments,
)
from engine.checking.derivation.step import Assumptions, Side, split_sides
from engine.checking.equivalence.expression import equivalent, pretty
from engine.checking.reading.brackets import top_level, unclosed
from engine.checking.reading.notation import names_used, normalise
from engine.checking.reading.safe_ast import Vocabulary, parse_tree
from engine.checking.reading.to_sympy import build
from engine.errors import AnswerError, BankError

MAX_SIDES = 6
# What a side that only names the quantity looks like: words, subscripts, a derivative, a call.
_LABEL = re.compile(r"[\w\s∂/{}()\\',.]+")
_USES = re.compile(r"\(this question uses [^)]*\)")
_MARKER_NAME = re.compile(r"zz(?:(?:dot|sum|diff|dop)_|moment)[A-Za-z0-9_]*")
# A word of prose (`since`, `by`, `FLOPs`): two letters or more standing alone, not a LaTeX
# command, a subscript, a call or a name with a subscript or power; or an abbreviation that
# opens a remark (`i.e.`, `e.g.`).
_WORD = re.compile(
    r"(?<![\\A-Za-z0-9_^{])(?:[A-Za-z]{2,}(?![A-Za-z0-9_({\[^])|(?:i\.\s?e|e\.\s?g)\.)"
)
# A relation a line may open with instead of `=`, stating the value it gives: `→ d_k/4` (the
# limit asked for), `≈ d_k/4`.
_OPENING_RELATION = re.compile(
    r"\s*(?:=|≈|→|⟶|\\approx(?![A-Za-z])|\\to(?![A-Za-z])|\\rightarrow)\s*"
)
# Words that are no prose: letters spelled out (`lambda`, `sigma`) and Python's own words, which
# mark a line as code, not as an expression with its reason.
_NOT_PROSE = frozenset(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "lamda",
        "mu",
        "nu",
        "xi",
        "omicron",
        "pi",
        "rho",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
        "Delta",
        "Sigma",
        "Gamma",
        "Lambda",
        "Omega",
        "Phi",
        "Psi",
        "Theta",
        "Pi",
        "def",
        "class",
        "import",
        "return",
        "yield",
        "async",
        "await",
        "nonlocal",
        "global",
        "del",
        "pass",
        "elif",
        "assert",
        "raise",
        "except",
        "finally",
        "None",
        "True",
        "False",
        "print",
        "exec",
        "eval",
        "open",
    ]
)
# An exact value followed by its rounding: `√512 ≈ 22.63`, `\sqrt{512} \approx 22.6`.
_ROUNDED = re.compile(r"(.*?)\s*(?:≈|\\approx|~=)\s*([-+]?[0-9]+(?:\.[0-9]+)?)\s*", re.DOTALL)

_APPROXIMATELY = re.compile(r"\s*(?:≈|\\approx(?![A-Za-z])|~=)\s*")
# Sums over an index and derivatives are compared with this many terms, for every choice of the
# free indices (so that both i = j and i ≠ j are tried).
CONCRETE_SIZES = (2, 3)
MAX_INDEX_CHOICES = 30
# A reader remembers what it has worked out (the author's sides, which scalars are equal): one
# drill's lines compare the same target sides again and again. Bounded, so that no run of
# hostile lines makes the memory grow.
READERS_KEPT = 16
MEMO_ENTRIES = 4096
_Value = TypeVar("_Value")


def reader_for(assumptions: Assumptions) -> StepReader:
    """The reader for `assumptions`, shared by every step checked under them (a reader is a
    pure function of its assumptions; the last `READERS_KEPT` are kept)."""
    return _READERS.get_or(_key_of(assumptions), lambda: StepReader(assumptions))


def _key_of(a: Assumptions) -> Hashable:
    """`a` as a hashable value (its mappings as sorted pairs)."""
    return (
        a.normal_vectors, a.dimension, a.vector_indices, a.indices, a.count, a.symbols,
        a.positive, a.integer, a.matrices,
        tuple(sorted((name, tuple(spellings)) for name, spellings in a.aliases.items())),
        tuple(sorted(a.definitions.items())),
    )  # fmt: skip


class _Memo(OrderedDict[Hashable, _Value]):
    """A bounded memo: past `size` entries, the least recently used goes first. Safe to share
    between threads (the work itself runs outside the lock)."""

    def __init__(self, size: int = MEMO_ENTRIES) -> None:
        super().__init__()
        self.size = size
        self._lock = threading.Lock()

    def get_or(self, key: Hashable, work: Callable[[], _Value]) -> _Value:
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return self[key]
        value = work()
        with self._lock:
            self[key] = value
            if len(self) > self.size:
                self.popitem(last=False)
        return value

    def known(self, key: Hashable) -> tuple[bool, _Value | None]:
        """(True, the value) when `key` is remembered, else (False, None)."""
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return True, self[key]
        return False, None


_READERS: _Memo[StepReader] = _Memo(READERS_KEPT)


class StepReader:
    """Reads and reduces the sides of steps under one set of assumptions.

    A reader does not change once built, so it remembers the author's sides it has read and the
    scalars it has compared (`reader_for` shares one between the steps of a drill).
    """

    def __init__(self, assumptions: Assumptions) -> None:
        self._memo: _Memo[Any] = _Memo()
        self._rewrites: _Memo[str] | None = None  # remembered once the reader is built
        self.assumptions = a = assumptions
        self.index_sizes = {i: a.dimension for i in a.vector_indices} | {
            i: a.count for i in a.indices
        }
        self.model = RandomModel(a.normal_vectors, a.dimension, self.index_sizes)
        self.families = self._families()
        self.aliases, derivative_spellings = self._split_aliases(self._aliases())
        self.derivative_quantities: set[str] = set()
        self.derivative_names: dict[str, str] = {}
        self.family_definitions: dict[str, tuple[str, Any]] = {}
        self.definitions: dict[str, Any] = {}
        self.rename = {
            spelling: name for name, spellings in self.aliases.items() for spelling in spellings
        }
        # `δ` may be written ∂L/∂O and `g_t` as ∂L/∂s_t: derivatives of a quantity the drill
        # does not define, named by the drill. Their markers are renamed after rewriting.
        for _ in range(2):  # ∂L/∂O names L as a quantity, so that dL/dO is read the second time
            for spelling, name in derivative_spellings.items():
                try:
                    marker = read_marker(self._rewrite(spelling).strip())
                except AnswerError:
                    raise BankError(
                        [f"the spelling {spelling!r} of {name} cannot be read"]
                    ) from None
                if marker is not None and marker[0] == "derivative":
                    self.derivative_quantities.add(marker[1][0])
                    self.derivative_names[derivative_marker(*marker[1])] = name
        self.symbols = self._declared_symbols()
        for text in a.definitions.values():
            self.symbols |= self._names_in(text)
        for name, text in a.definitions.items():
            family, index = self.family_of(name)
            try:
                expr = self.read(text)
            except AnswerError as error:
                raise BankError([f"the definition of {name} cannot be read: {error}"]) from None
            if family is not None and index is not None:
                self.family_definitions[family] = (index, expr)
            else:
                self.definitions[name] = expr
        self._rewrites = _Memo()

    # --- names ------------------------------------------------------------------------------

    def family_of(self, name: str) -> tuple[str | None, str | None]:
        """`s_j` -> ("s", "j") when j is an index; (None, None) for any other name."""
        family, underscore, index = name.rpartition("_")
        if underscore and index in self.index_sizes:
            return family, index
        return None, None

    def delta_indices(self, name: str) -> str:
        """`ij` for the Kronecker delta `delta_ij` of two indices, else an empty string."""
        family, _, letters = name.rpartition("_")
        if family == "delta" and len(letters) == 2 and set(letters) <= set(self.index_sizes):
            return letters
        return ""

    def _families(self) -> set[str]:
        names = [*self.assumptions.symbols, *self.assumptions.definitions]
        return {f for f, _ in map(self.family_of, names) if f is not None}

    def _aliases(self) -> dict[str, tuple[str, ...]]:
        """The declared spellings, with a family's spellings given for every index."""
        aliases: dict[str, tuple[str, ...]] = {}
        for name, spellings in self.assumptions.aliases.items():
            family, index = self.family_of(name)
            if family is None or index is None:
                aliases[name] = tuple(spellings)
                continue
            for other in self.index_sizes:
                aliases[f"{family}_{other}"] = tuple(
                    re.sub(rf"_{index}$", f"_{other}", spelling) for spelling in spellings
                )
        return aliases

    @staticmethod
    def _split_aliases(
        aliases: dict[str, tuple[str, ...]],
    ) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
        """Plain spellings, and the spellings that are derivatives (`∂L/∂O`) with their names."""
        plain: dict[str, tuple[str, ...]] = {}
        derivatives: dict[str, str] = {}
        for name, spellings in aliases.items():
            plain[name] = tuple(s for s in spellings if "/" not in s)
            derivatives |= {s: name for s in spellings if "/" in s}
        return plain, derivatives

    def _declared_symbols(self) -> set[str]:
        a = self.assumptions
        symbols = {a.dimension, a.count, *a.normal_vectors, *a.symbols, *a.aliases}
        symbols |= {f"{v}_{i}" for v in a.normal_vectors for i in a.vector_indices}
        symbols |= {f"{f}_{i}" for f in self.families for i in self.index_sizes}
        symbols |= {f"delta_{i}{j}" for i in self.index_sizes for j in self.index_sizes}
        symbols |= set(self.aliases)
        return {s for s in symbols if s}

    def names_in(self, text: str) -> set[str]:
        """The declared and defined names `text` uses (what an author's line may name)."""
        return self._names_in(text)

    def _names_in(self, text: str) -> set[str]:
        try:
            rewritten = self._rewrite(text)
            return names_used(rewritten, symbols=self.symbols, aliases=self.aliases)
        except AnswerError:
            return set()

    def names_for_learner(self) -> list[str]:
        """The names this question uses, as a learner would list them: not every internal
        spelling (no δ for every pair of indices, no range symbol n)."""
        a = self.assumptions
        plain_indices = [i for i in a.indices if not i.isdigit()]
        names = {*a.symbols, *a.matrices, *a.normal_vectors}
        names |= {f"{f}_{i}" for f in self.families for i in plain_indices}
        names |= {f"{v}_{i}" for v in a.normal_vectors for i in a.vector_indices[:1]}
        if a.normal_vectors or a.dimension in a.aliases:
            names.add(a.dimension)
        for name in a.definitions:
            family, _ = self.family_of(name)
            names.add(name if family is None else f"{family}_{plain_indices[0]}")
        if a.definitions and len(plain_indices) >= 2:
            names.add(f"δ_{plain_indices[0]}{plain_indices[1]}")
        return sorted({"δ" if name == "delta" else name for name in names}, key=str.lower)

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
        """`text` in the reader's names and markers (`rewrite_derivation`); remembered once the
        reader is built (while it is built, what it rewrites to changes with each definition)."""
        if self._rewrites is None:
            return self._rewritten(text)
        return self._rewrites.get_or(text, lambda: self._rewritten(text))

    def _rewritten(self, text: str) -> str:
        a = self.assumptions
        quantities = set(self.definitions) | self.derivative_quantities
        quantities |= {f"{f}_{i}" for f in self.families for i in self.index_sizes}
        rewritten = rewrite_derivation(
            text,
            vectors=a.normal_vectors,
            indices=self.index_sizes,
            quantities=quantities,
            rename=self.rename,
            dimension=a.dimension,
        )
        for marker, name in self.derivative_names.items():
            rewritten = re.sub(
                rf"(?<![A-Za-z0-9_]){re.escape(marker)}(?![A-Za-z0-9_])", name, rewritten
            )
        return rewritten

    def remember(self, key: Hashable, work: Callable[[], _Value]) -> _Value:
        """What `work` gives, worked out once for `key` under this reader's assumptions.

        `work` must be a pure function of `key` and the reader: the reader does not change once
        built. Errors are not remembered (the next call raises them again)."""
        value: _Value = self._memo.get_or(key, work)
        return value

    def read(self, text: str, *, extra: set[str] | None = None) -> Any:
        """Read one side into SymPy, or raise AnswerError saying why not."""
        from sympy.core.parameters import global_parameters

        # SymPy's `evaluate(False)` changes what building the tree gives.
        key = ("read", text, frozenset(extra or ()), global_parameters.evaluate)
        return self.remember(key, lambda: self._read(text, extra))

    def _read(self, text: str, extra: set[str] | None) -> Any:
        tree, vocabulary = self.tree(text, extra=extra)
        expr = build(tree, vocabulary)
        if isinstance(expr, tuple):
            raise AnswerError("could not read this: type one expression")
        return Derivatives(self).applied(expr)

    def tree(self, text: str, *, extra: set[str] | None = None) -> tuple[Any, Vocabulary]:
        """One side as its checked syntax tree (as written, nothing simplified), with the
        vocabulary that builds it or any part of it; AnswerError when it cannot be read."""
        if found := _MARKER_NAME.search(text):
            raise AnswerError(f"could not read this: `{found.group(0)}` is not a known name")
        rewritten = self._rewrite(text)
        markers = set(_MARKER_NAME.findall(rewritten))
        vocabulary = self.vocabulary(markers | (extra or set()))
        try:
            plain = self.remember(
                ("normalised", rewritten, vocabulary.symbols, vocabulary.matrices),
                lambda: normalise(
                    rewritten,
                    symbols=vocabulary.symbols,
                    aliases=self.aliases,
                    matrices=vocabulary.matrices,
                ),
            )
            tree = parse_tree(plain, vocabulary)
        except AnswerError as error:
            message = _USES.sub(
                f"(this question uses {', '.join(self.names_for_learner())})", str(error)
            )
            raise AnswerError(_without_markers(message)) from None
        except (Exception, RecursionError):
            raise AnswerError("could not read this: it is not an expression") from None
        return tree, vocabulary

    def as_written(self, side: Side) -> Any:
        """A side read without SymPy's simplification where SymPy can build it so, else as read."""
        import sympy

        # Switching SymPy's `evaluate` empties SymPy's own caches (twice a switch): a side
        # already read as written is taken from the memo without it.
        known, expr = self._memo.known(("read", side.text, frozenset(), False))
        if known:
            return expr
        try:
            with sympy.evaluate(False):
                return self.read(side.text)
        except (Exception, RecursionError):
            return side.expr

    def side(self, text: str, expr: Any, misconceptions: Misconceptions | None = None) -> Side:
        value, used = self._lowered(expr, misconceptions)
        return Side(text.strip(), expr, value, self.show(expr), used)

    def value_of(self, expr: Any, misconceptions: Misconceptions | None = None) -> Any:
        return self._lowered(expr, misconceptions)[0]

    def _lowered(
        self, expr: Any, misconceptions: Misconceptions | None
    ) -> tuple[RandomPolynomial, frozenset[str]]:
        """`expr` reduced (`expectation.Lowering`), and the rules the reduction used."""

        def lower() -> tuple[RandomPolynomial, frozenset[str]]:
            lowering = Lowering(self.model, misconceptions, self.definitions)
            value = lowering.lower(expr)
            return self._defined_in(value), frozenset(lowering.used)

        return self.remember(("lowered", expr, misconceptions), lower)

    def _defined_in(self, value: RandomPolynomial) -> RandomPolynomial:
        """`value` with the defined names put in where the reduction brought them back: a
        question that gives d_k = 512 means 512 for the d_k that Var(q·k) reduces to."""
        if not self.definitions:
            return value
        defined = {}
        for term, coefficient in value.items():
            names: set[Any] = getattr(coefficient, "free_symbols", set())
            put = {s: self.definitions[name_of(s)] for s in names if name_of(s) in self.definitions}
            defined[term] = coefficient.xreplace(put) if put else coefficient
        return defined

    def author_side(self, text: str) -> Side:
        """The last side of an author's line (an expected step, a mistake, the line before),
        read once per reader."""
        return self.remember(("author side", text), lambda: self._author_side(text))

    def _author_side(self, text: str) -> Side:
        last = split_sides(text)[-1]
        if not last.strip():
            raise AnswerError(f"`{text}` has no expression after its last `=`")
        names = self._names_in(last)
        return self.side(last, self.read(last, extra=names))

    def learner_sides(self, step: str, *, continues: bool) -> list[Side]:
        if not step.strip():
            raise AnswerError("could not read this: the line is empty")
        relation = _OPENING_RELATION.match(step)
        if relation is not None and "=" not in relation.group(0) and step[relation.end() :].strip():
            step = step[relation.end() :]  # `→ d_k/4`, `≈ d_k/4`: the value the line states
        texts = split_sides(step)
        if len(texts) > MAX_SIDES:
            raise AnswerError(f"could not read this: keep a line to at most {MAX_SIDES} sides")
        if not texts[0].strip() and len(texts) > 1:
            if not continues:
                raise AnswerError("could not read this: the first line cannot start with `=`")
            texts = texts[1:]
            if len(texts) == 1 and not texts[0].strip():
                raise AnswerError("could not read this: write an expression after `=`")
        if len(texts) > 1 and self.is_label(texts[0]):
            texts = texts[1:]  # `FLOPs = 2T² d_k`, `∂L/∂v_j = δ a_j`: the left side names it
        elif len(texts) > 1 and self.is_label(texts[-1], words=False):
            texts = texts[:-1]  # `δ a_j = ∂L/∂v_j`: written right to left, the name comes last
        sides: list[Side] = []
        for text in texts:
            if not text.strip():
                raise AnswerError("could not read this: an `=` needs an expression on each side")
            try:
                expr = self.read(text)
            except AnswerError as error:
                if len(texts) == 1:
                    raise
                raise type(error)(f"{error} (in `{text.strip()}`)") from None
            sides.append(self.side(text, expr))
        return sides

    def split_off_words(self, step: str) -> tuple[str, str] | None:
        """`Σ_a Var(q_a k_a)  (the terms are independent)` -> the expression and the words.

        A line may end with its reason or its unit in words (`by linearity`, `since E[q_a] = 0`,
        `, so the std is √d_k`, `FLOPs`), or open with them (`by independence: ...`, `so ...`).
        The expression is what follows the opening words and comes before the next word that
        is none of the question's names (and before a bracket that word opened); None when
        there are no such words or no expression between them.
        """
        known = self.symbols | {s for spellings in self.aliases.values() for s in spellings}
        known |= set(self.assumptions.matrices) | _NOT_PROSE
        if any(word.group(0) in _NOT_PROSE for word in _WORD.finditer(step)):
            return None  # code, or a letter the reader does not know here: not prose
        start = _remark_end(step, known)
        while (opening := _WORD.match(step, _skip_separators(step, start))) and (
            opening.group(0) not in known
        ):
            start = _skip_separators(step, opening.end())
        words = [step[:start].strip(" \t,;:")] if start else []
        rest = step[start:]
        for match in _WORD.finditer(rest):
            if match.group(0) in known:
                continue
            cut = _unclosed_opener(rest[: match.start()])
            words.append(rest[cut:].strip())
            rest = rest[:cut].rstrip(" \t,;:—–(")
            break
        if not words or not rest.strip(" ="):
            return None
        if start and (relation := _OPENING_RELATION.match(rest)) and relation.group(0).strip():
            # `bytes = 8T d_k + 8T² (S is …)`, `intensity ≈ d_k/4 for T ≫ d_k`: the opening
            # words name the quantity, the expression after the relation is the step
            rest = rest[relation.end() :]
        return rest, " … ".join(words)

    @staticmethod
    def split_off_rounding(step: str) -> tuple[str, str] | None:
        """`√512 ≈ 22.63` -> (`√512`, `≈ 22.63`): a rounded value after the exact one; None
        when the line does not end so."""
        found = _ROUNDED.fullmatch(step)
        if found is None or not found.group(1).strip(" ="):
            return None
        return found.group(1), "≈ " + found.group(2)

    @staticmethod
    def split_off_approximation(step: str) -> tuple[str, str] | None:
        """`T d_k/(4(d_k + T)) ≈ d_k/4` -> (`T d_k/(4(d_k + T))`, `≈ d_k/4`): an approximate
        form after the exact one (a rounded number is `split_off_rounding`'s); None otherwise."""
        parts = _APPROXIMATELY.split(step)
        if len(parts) != 2 or not parts[0].strip(" =") or not parts[1].strip():
            return None
        if _ROUNDED.fullmatch(step):
            return None
        return parts[0], "≈ " + parts[1].strip()

    def is_label(self, text: str, *, words: bool = True) -> bool:
        """Whether a first side only names the quantity: a word (unless `words` is False), or a
        derivative of a name the drill does not define (`∂L/∂V`, `dL/dq`), rather than an
        expression to check."""
        if not _LABEL.fullmatch(text.strip()):
            return False
        try:
            expr = self.read(text)
        except AnswerError as error:
            return words and "is not a known name" in str(error)
        if not expr.is_Symbol:
            return False
        marker = read_marker(expr.name)
        if marker is None or marker[0] != "derivative":
            return False
        quantity = marker[1][0]
        family, _ = self.family_of(quantity)
        return quantity not in self.definitions and family not in self.family_definitions

    # --- comparing ----------------------------------------------------------------------------
    # Plain scalars are compared by `expression.equivalent` (SymPy, or agreement at random
    # points). Sums over an index, derivatives, Kronecker deltas and defined quantities such as
    # p_i cannot be compared that way, so both sides are written out for a small number of terms
    # (each size in `CONCRETE_SIZES`) and for every choice of the free indices, so that both
    # i = j and i ≠ j are tried, and the written-out forms are compared instead.

    def same(self, left: RandomPolynomial, right: RandomPolynomial) -> bool:
        """Whether two reduced sides are equal term by term, whatever the components' moments."""
        import sympy

        zero = sympy.Integer(0)
        return all(
            self.equal_scalars(left.get(term, zero), right.get(term, zero))
            for term in set(left) | set(right)
        )

    def same_normal(self, left: RandomPolynomial, right: RandomPolynomial) -> bool:
        """Whether two reduced sides are equal once the N(0, 1) moments are put in."""
        return self.same(at_normal(left), at_normal(right))

    def follows(self, left: RandomPolynomial, right: RandomPolynomial) -> bool:
        """Whether `right` is a valid step from `left`.

        Both are reduced with the components' moments left unknown, so equal sides are equal by the
        rules (linearity, independence, the definitions), not because N(0, 1) makes two different
        quantities the same number. A step may also apply the stated assumption openly: the moments
        it no longer mentions (E[q_a] written as 0, E[q_a²] as 1) are put in on the left. A moment
        the line still mentions keeps its generic value, so E[q_a k_a]² for E[q_a k_a] fails.
        """
        if self.same(left, right):
            return True
        applied = polynomial_moments(left) - polynomial_moments(right)
        return bool(applied) and self.same(at_normal(left, applied), right)

    def equal_scalars(self, a: Any, b: Any) -> bool:
        """Whether two scalars are equal; sums, derivatives and defined quantities written out."""
        if a == b:
            return True
        return self.remember(("equal", a, b), lambda: self._equal_scalars(a, b))

    def _equal_scalars(self, a: Any, b: Any) -> bool:
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
            marker = read_marker(name_of(symbol))
            family, _ = self.family_of(name_of(symbol))
            if (marker is not None and marker[0] != "dot") or family in self.family_definitions:
                return True
            if self.delta_indices(name_of(symbol)):
                return True
        return any(str(f.func) == "sum" for f in expr.atoms(sympy.Function))

    def _free_indices(self, expr: Any) -> set[str]:
        found: set[str] = set()
        for symbol in expr.free_symbols:
            name = name_of(symbol)
            marker = read_marker(name)
            if marker is not None and marker[0] == "derivative":
                for part in marker[1]:
                    found |= indices_of(part, self.index_sizes)
            elif marker is None:
                found |= indices_of(name, self.index_sizes)
        return found

    def free_indices(self, expr: Any) -> frozenset[str]:
        """The indices `expr` leaves free: those its names carry (q_b, s_j, δ_ij, ∂v_t/∂v_j)
        outside every Σ over them. Σ_a E[q_a] E[k_b] leaves b free; Σ_a E[q_a k_a] leaves none."""
        return self.remember(("free indices", expr), lambda: self._free_in(expr))

    def _free_in(self, expr: Any) -> frozenset[str]:
        import sympy

        if expr.is_Symbol:
            return self._carried(name_of(expr))
        if isinstance(expr, sympy.Function) and str(expr.func) == "sum" and expr.args:
            body = expr.args[0]
            factors = body.args if body.is_Mul else (body,)
            markers = [f for f in factors if f.is_Symbol and str(f).startswith(sum_marker(""))]
            if markers:
                index = str(markers[0])[len(sum_marker("")) :]
                rest = [f for f in factors if f is not markers[0]]
                return frozenset().union(*map(self._free_in, rest)) - {index}
        return frozenset().union(*(self._free_in(arg) for arg in expr.args))

    def free_in_sums(self, expr: Any) -> frozenset[str]:
        """The free indices `expr` has inside a Σ: b in Σ_a E[q_a] E[k_b], j in Σ_t a_t δ_tj;
        none in d_k E[q_a] or Σ_a Σ_b E[q_a k_b]."""
        return self.remember(("free in sums", expr), lambda: self._free_in_sums(expr, set()))

    def _free_in_sums(self, expr: Any, bound: set[str]) -> frozenset[str]:
        import sympy

        found: frozenset[str] = frozenset()
        if isinstance(expr, sympy.Function) and str(expr.func) == "sum":
            found = self.free_indices(expr) - bound
            marker = [s for s in expr.free_symbols if name_of(s).startswith(sum_marker(""))]
            bound = bound | {name_of(s)[len(sum_marker("")) :] for s in marker}
        for arg in expr.args:
            found |= self._free_in_sums(arg, bound)
        return found

    def _carried(self, name: str) -> frozenset[str]:
        """The letter indices one name carries: q_b -> {b}, delta_ij -> {i, j}, ∂p_i/∂s_j ->
        {i, j}; none for q_1, one fixed component."""
        marker = read_marker(name)
        if marker is not None:
            if marker[0] in {"derivative", "operator"}:
                return frozenset().union(*map(self._carried, marker[1]))
            return frozenset()
        if pair := self.delta_indices(name):
            return frozenset(pair)
        family, index = self.family_of(name)
        if (
            index is not None
            and not index.isdigit()
            and (  # q_1 is one fixed component
                family in self.families
                or family in self.family_definitions
                or family in self.assumptions.normal_vectors
            )
        ):
            return frozenset({index})
        return frozenset()

    def written_out(self, expr: Any, size: int, values: Mapping[str, int]) -> Any:
        """`expr` with every sum written out over 1..size and the free indices set to values
        (remembered: a step's target side is written out again for every line compared)."""
        key = ("written out", expr, size, tuple(sorted(values.items())))
        return self.remember(key, lambda: self._written_out(expr, size, values))

    def _written_out(self, expr: Any, size: int, values: Mapping[str, int], depth: int = 0) -> Any:
        import sympy

        if depth > 2 * len(self.assumptions.definitions) + 20:
            raise CannotEvaluate("a definition refers to itself")
        if expr.is_Symbol:
            return self._written_symbol(expr, size, values, depth)
        if not expr.args:
            return expr
        if str(expr.func) == "sum":
            marker = next(
                iter(s for s in expr.free_symbols if name_of(s).startswith("zzsum_")), None
            )
            if marker is None:
                if expr.args[0] == 0:  # Σ_a 0·0: the body, and with it the index, is zero
                    return sympy.Integer(0)
                raise CannotEvaluate("say which index a sum runs over, as in Σ_j e^{s_j}")
            index = str(marker)[len(sum_marker("")) :]
            body = expr.args[0] / marker
            return sympy.Add(
                *(
                    self._written_out(body, size, {**values, index: v}, depth + 1)
                    for v in range(1, size + 1)
                )
            )
        arguments = [self._written_out(arg, size, values, depth + 1) for arg in expr.args]
        return expr.func(*arguments)

    def _written_symbol(self, expr: Any, size: int, values: Mapping[str, int], depth: int) -> Any:
        import sympy

        name = name_of(expr)
        if name in {self.assumptions.count, self.assumptions.dimension}:
            return sympy.Integer(size)
        marker = read_marker(name)
        if marker is not None and marker[0] == "derivative":
            quantity, variable = marker[1]
            top = self._written_out(sympy.Symbol(quantity), size, values, depth + 1)
            by = self._written_out(sympy.Symbol(variable), size, values, depth + 1)
            if not by.is_Symbol:
                raise CannotEvaluate(f"cannot differentiate by {variable}")
            return sympy.diff(top, by)
        pair = self.delta_indices(name)
        if pair and all(index in values for index in pair):
            return sympy.Integer(int(values[pair[0]] == values[pair[1]]))
        family, index = self.family_of(name)
        if family is None or index is None:
            if name in self.definitions:
                return self._written_out(self.definitions[name], size, values, depth + 1)
            return expr
        if index not in values:
            return expr
        if family in self.family_definitions:
            own_index, definition = self.family_definitions[family]
            return self._written_out(definition, size, {own_index: values[index]}, depth + 1)
        return sympy.Symbol(f"{family}_{values[index]}")

    # --- showing ----------------------------------------------------------------------------

    def show(self, expr: Any) -> str:
        return self.remember(
            ("show", expr), lambda: _without_markers(_tidy(pretty(self._readable(expr))))
        )

    def show_value(self, value: RandomPolynomial) -> str:
        def shown() -> str:
            expr = display(at_normal(value), self.model)
            return _without_markers(_tidy(pretty(self._readable(expr))))

        return self.remember(("show value", tuple(value.items())), shown)

    def _readable(self, expr: Any) -> Any:
        import sympy

        def is_sum(node: Any) -> bool:
            return isinstance(node, sympy.Function) and str(node.func) == "sum"

        def as_sigma(node: Any) -> Any:
            argument = node.args[0]
            for symbol in argument.free_symbols:
                if name_of(symbol).startswith("zzsum_"):
                    index = name_of(symbol)[len(sum_marker("")) :]
                    return sympy.Function(f"Σ_{index}")(argument / symbol)
            return node

        try:
            expr = expr.replace(is_sum, as_sigma)
        except (Exception, RecursionError):
            return expr
        names: dict[Any, Any] = {}
        for symbol in expr.free_symbols:
            marker = read_marker(name_of(symbol))
            if marker is not None and marker[0] == "dot":
                names[symbol] = sympy.Symbol("(" + "·".join(marker[1]) + ")")
            elif marker is not None and marker[0] == "derivative":
                names[symbol] = sympy.Symbol(f"∂{marker[1][0]}/∂{marker[1][1]}")
            elif self.delta_indices(name_of(symbol)):
                names[symbol] = sympy.Symbol(f"δ_{self.delta_indices(name_of(symbol))}")
        return expr.xreplace(names)

    def is_closed(self, side: Side) -> bool:
        """Whether a side is a closed form: no E, Var, sum, derivative or random component."""
        import sympy

        if any(term != CONSTANT for term in side.value):
            return False
        calls = {str(f.func) for f in side.expr.atoms(sympy.Function)}
        names = {name_of(s) for s in side.expr.free_symbols}
        return not (
            calls & {"E", "Var", "sum"}
            or any(read_marker(n) for n in names)
            or any(self.model.component(n) for n in names)
        )


def _skip_separators(text: str, position: int) -> int:
    """Where the next word or expression starts after `position`: past spaces and `,;:`."""
    while position < len(text) and text[position] in " \t,;:":
        position += 1
    return position


def _remark_end(text: str, known: set[str]) -> int:
    """Where the step starts after an opening remark ended by a colon (`assuming q_i, k_i iid
    N(0,1): ...`, `using Var(cX) = c² Var(X): ...`): just after the last colon outside brackets
    when some word of prose comes before it; 0 when the line opens with no such remark."""
    colon = -1
    for found in top_level(":", text):
        colon = found.start()
    if colon < 0 or not any(w.group(0) not in known for w in _WORD.finditer(text[:colon])):
        return 0
    return colon + 1


def _unclosed_opener(text: str) -> int:
    """Where the first bracket of `text` left open starts (the length of `text` if none is)."""
    open_at = unclosed(text)
    return open_at[0] if open_at else len(text)


def _tidy(text: str) -> str:
    """Drop the brackets around a dot product unless it is raised to a power: E(q·k)."""
    return re.sub(r"\(([A-Za-z0-9]+·[A-Za-z0-9]+)\)(?!\^)", r"\1", text)


def _without_markers(message: str) -> str:
    """Keep the reader's own marker names out of what a learner reads."""
    message = re.sub(r"zzsum_[A-Za-z0-9]+\s*[*·]?\s*", "", message)
    message = re.sub(
        r",\s*zz(?:dot|diff|dop)_[A-Za-z0-9_]+|zz(?:dot|diff|dop)_[A-Za-z0-9_]+,?\s*", "", message
    )
    return message
