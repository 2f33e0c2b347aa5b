"""Rewrite the notation of derivations into text the safe reader understands.

A derivation step says `E[q·k] = Σ_a E[q_a] E[k_a]` or `∂p_i/∂s_j = p_i(δ_ij − p_j)`; the safe
reader (`notation`, `safe_ast`) knows `E(...)`, `Var(...)` and one-argument `sum(...)`, but no
square brackets after E, no dot product of vectors, no summation index and no derivative. This
module rewrites those, as plain text and without evaluating anything, into calls and marker
symbols whose names carry the meaning:

- `q·k`, `q.k`, `q k`, `qᵀk`, `dot(q, k)`, `⟨q, k⟩` become the symbol `zzdot_q_k`;
- `Σ_a body`, `sum_a body`, `\\sum_{a=1}^{d_k} body` become `sum(zzsum_a*(body))`: the sum
  covers the product that follows it, up to the next `+`, `-`, `=` or closing bracket;
- `∂p_i/∂s_j`, `\\frac{\\partial p_i}{\\partial s_j}` (and `dp_i/ds_j` for a defined quantity)
  become the symbol `zzdiff_p_i_by_s_j`;
- the operator `∂/∂v_j body` (`\\frac{\\partial}{\\partial v_j} body`), a derivative of what
  follows it, becomes `sum(zzdop_v_j*(body))`, its body marked like a sum's; the reader takes
  that derivative (`StepReader`), so nothing downstream sees this form.

`read_marker` turns a marker name back into what it stands for.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.checking.reading.brackets import (
    ROUND_AND_SQUARE,
    group_end,
    group_start,
    matching_close,
    split_top_level,
    top_level,
)
from engine.checking.reading.safe_ast import check_size
from engine.checking.reading.typography import to_ascii
from engine.errors import AnswerError

DOT_PREFIX = "zzdot_"
SUM_PREFIX = "zzsum_"
DERIVATIVE_PREFIX = "zzdiff_"
OPERATOR_PREFIX = "zzdop_"
_BY = "_by_"

# A quantity or variable in a derivative: a name with at most one subscript, such as p_i or s_j.
_NAME = r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?"
_LATEX_BEFORE = [
    # A command starts a new token even right after a letter: `\sum_j\exp(s_j)` is Σ_j exp(s_j).
    (re.compile(r"(?<=[A-Za-z0-9])\\(?=[A-Za-z])"), r" \\"),
    # A vector's arrow or bold face is only its typography: `\vec{q}\cdot\vec{k}` is q·k.
    (re.compile(r"\\(?:vec|mathbf|boldsymbol)\s*\{\s*([A-Za-z])\s*\}"), r"\1"),
    (re.compile(r"\\vec\s+([A-Za-z])(?![A-Za-z])"), r"\1"),
    # σ² applied to something is its variance: `σ²(q·k)`, `\sigma^2(q_a k_a)`.
    (
        re.compile(
            r"(?:σ|\\sigma(?![A-Za-z])|(?<![A-Za-z])sigma)\s*(?:²|\^\s*\{?\s*2\s*\}?)\s*(?=[(\[])"
        ),
        "Var",
    ),
    (re.compile(r"\^\s*\{?\s*⊤\s*\}?"), "⊤"),  # A^⊤ is Aᵀ
    (re.compile(r"\\[lc]?dots(?![A-Za-z])|⋯"), "..."),  # the ellipsis of a written-out sum
    (re.compile(r"\\mathbb\s*\{\s*E\s*\}|\\mathbb\s+E(?![A-Za-z])|𝔼"), "E"),
    (re.compile(r"\\mathbb\s*\{\s*V\s*\}|\\mathbb\s+V(?![A-Za-z])|𝕍"), "Var"),
    (re.compile(r"\\(?:operatorname|mathrm|text)\s*\{\s*(E|Var)\s*\}"), r"\1"),
    (re.compile(r"\\Sigma(?![A-Za-z])|\\sum(?![A-Za-z])|[Σ∑]"), r" \\sum "),
    (re.compile(r"\\langle(?![A-Za-z])"), "⟨"),
    (re.compile(r"\\rangle(?![A-Za-z])"), "⟩"),
    (re.compile(r"\\partial(?![A-Za-z])"), "∂"),
    (re.compile(r"\\(?:left|right)(?![A-Za-z])"), ""),
]
# `E[q_a]^2E[k_a]^2`: an E right after a digit is still the operator.
_OPERATOR_BRACKET = re.compile(r"(?<![A-Za-z_])(E|Var)\s*\[")
_SUM_WORD = re.compile(r"(?<![A-Za-z0-9_])sum(?![A-Za-z0-9])")
# `sum over a E[q_a k_a]`: the index named in words, as a learner says it.
_SUM_OVER = re.compile(r"(?<![A-Za-z0-9_])(?:\\sum|sum)\s+over\s+([A-Za-z])(?![A-Za-z0-9_])")


# Unicode subscripts (qᵢkᵢ, ∑ᵢ, q₁) become `_i ` so that qᵢkᵢ reads as q_i k_i, not q_ik_i.
_SUBSCRIPTS = dict(zip("ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₀₁₂₃₄₅₆₇₈₉", "aehijklmnoprstuvx0123456789", strict=True))
_SUBSCRIPT_RUN = re.compile(f"[{''.join(_SUBSCRIPTS)}]+")


def plain_subscripts(text: str) -> str:
    """`qᵢkᵢ` -> `q_i k_i `: every run of Unicode subscript letters as an ASCII subscript."""
    return _SUBSCRIPT_RUN.sub(
        lambda m: "_" + "".join(_SUBSCRIPTS[c] for c in m.group()) + " ", text
    )


def dot_marker(first: str, second: str) -> str:
    return f"{DOT_PREFIX}{first}_{second}"


def sum_marker(index: str) -> str:
    return f"{SUM_PREFIX}{index}"


def derivative_marker(quantity: str, variable: str) -> str:
    return f"{DERIVATIVE_PREFIX}{quantity}{_BY}{variable}"


def operator_marker(variable: str) -> str:
    return f"{OPERATOR_PREFIX}{variable}"


@functools.lru_cache(maxsize=8192)
def name_of(symbol: Any) -> str:
    """`str(symbol)`, remembered: SymPy's printer takes tens of microseconds a call, and a step's
    checks ask for the names of the same few symbols thousands of times."""
    return str(symbol)


def read_marker(name: str) -> tuple[str, tuple[str, ...]] | None:
    """("dot", (q, k)), ("sum", (a,)), ("derivative", (p_i, s_j)), ("operator", (v_j,)), or
    None for other names."""
    if name.startswith(DOT_PREFIX):
        first, _, second = name[len(DOT_PREFIX) :].partition("_")
        return ("dot", (first, second))
    if name.startswith(SUM_PREFIX):
        return ("sum", (name[len(SUM_PREFIX) :],))
    if name.startswith(OPERATOR_PREFIX):
        return ("operator", (name[len(OPERATOR_PREFIX) :],))
    if name.startswith(DERIVATIVE_PREFIX) and _BY in name:
        quantity, _, variable = name[len(DERIVATIVE_PREFIX) :].partition(_BY)
        return ("derivative", (quantity, variable))
    return None


def rewrite_derivation(
    text: str,
    *,
    vectors: Sequence[str] = (),
    indices: Collection[str] = (),
    quantities: Collection[str] = (),
    rename: Mapping[str, str] | None = None,
    dimension: str = "d_k",
) -> str:
    """Rewrite one side of a step into the safe reader's language, with marker symbols.

    `vectors` are the names of vectors (their products are dot products), `indices` the names a
    sum may run over, `quantities` the names that `dq/dx` may differentiate, and `rename` maps a
    spelling of a quantity to its canonical name. When `indices` maps each index to its range
    (`a` -> `d_k`), a sum's written bounds must cover that range; `dimension` is the range of the
    vectors' indices, which a sum must name (another index may run to any count's name). Raises
    PartialSum for a sum over part of the range, AnswerError when the text cannot be read.
    """
    check_size(text)  # hostile length or nesting is refused before any rewriting
    text = plain_subscripts(text)
    for pattern, replacement in _LATEX_BEFORE:
        text = pattern.sub(replacement, text)
    text = _standard_deviations(_without_averaged_over(text, vectors))
    text = to_ascii(text)
    text = _SUM_OVER.sub(r"sum_\1 ", text)
    if isinstance(indices, Mapping):
        text = _written_out_sums(text, indices, rename or {})
    text = _square_brackets_to_calls(text)
    text = _mark_dot_products(text, vectors)
    text = _mark_derivatives(text, quantities, rename or {})
    sizes = dict(indices) if isinstance(indices, Mapping) else {}
    return _mark_sums(text, set(indices), _Ranges(sizes, rename or {}, dimension))


# The standard deviation as a function: `Std(q·k)`, `SD[X]`, `σ(q·k)`, `\operatorname{std}(X)`.
_STD = re.compile(
    r"(?:(?<![A-Za-z0-9_\\])(?:Std|std|SD|σ)|\\sigma(?![A-Za-z])"
    r"|\\(?:operatorname|mathrm|text)\s*\{\s*(?:Std|std|SD|sd)\s*\})\s*(?=[(\[])"
)


def _standard_deviations(text: str) -> str:
    """`Std(X)` -> `sqrt(Var(X))`: the standard deviation is the root of the variance."""
    for _ in range(8):  # a line names a few standard deviations at most
        found = _STD.search(text)
        if found is None:
            return text
        opening = found.end()
        end = matching_close(text, opening, ROUND_AND_SQUARE)
        if end is None or text[end] != {"(": ")", "[": "]"}[text[opening]]:
            return text  # left open or closed with another bracket: the reader says so
        inner = text[opening + 1 : end]
        text = f"{text[: found.start()]}sqrt(Var({inner})){text[end + 1 :]}"
    return text


_MAX_TERM, _MAX_PLACES = 200, 6
_ELLIPSIS = re.compile(r"\+\s*\.\.\.\s*\+")
# A subscript that is one of the numbers 1, 2 or the last index of a written-out sum.
_SUBSCRIPT_TEXT = (
    r"_(?:\(\s*([A-Za-z0-9_]+)\s*\)|([0-9]+)|([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?))"
)
_SUBSCRIPT = re.compile(_SUBSCRIPT_TEXT)


def _written_out_sums(text: str, sizes: Mapping[str, str], rename: Mapping[str, str]) -> str:
    """`E[q_1 k_1] + E[q_2 k_2] + ... + E[q_(d_k) k_(d_k)]` -> `sum_a (E[q_a k_a])`.

    The two terms before the ellipsis must be one term with a subscript 1 and then 2 in the
    same places, and the term after it the same with the last index, which must be the range
    of one of the question's indices (d_k for a, n for j); anything else is left as it is.
    """
    for _ in range(8):  # a line has at most a few written-out sums
        match = _ELLIPSIS.search(text)
        if match is None:
            return text
        start = _group_edge(text, match.start(), -1)
        end = _group_edge(text, match.end(), 1)
        before = split_top_level(text[start : match.start()], "+")
        after = split_top_level(text[match.end() : end], "+")
        if len(before) < 2 or not after:
            return text
        first, second, last = before[-2], before[-1], after[0]
        template, other = _template(first, "1"), _template(second, "2")
        if template is None or other is None or template.split() != other.split():
            return text
        if len(template) > _MAX_TERM or template.count("\x00") > _MAX_PLACES:
            return text  # a term this long is no written-out sum a learner types
        bound = _bound(template, last)
        index = next(
            (
                i
                for i, size in sizes.items()
                if bound is not None
                and rename.get(bound, bound) == size
                and not re.search(rf"_\(?{i}\b", text)
            ),
            None,
        )
        if index is None:
            return text
        body = template.replace("\x00", f"_{index} ")
        head = "+".join(before[:-2])
        tail = "+".join(after[1:])
        written = f"{head}{'+' if head.strip() else ''}sum_{index} ({body})"
        text = text[:start] + written + ("+" + tail if tail.strip() else "") + text[end:]
    return text


def _template(term: str, number: str) -> str | None:
    """`E(q_1 k_1)` with number 1 -> `E(q\x00 k\x00)`; None when no subscript is `number`."""
    found = False

    def mark(match: re.Match[str]) -> str:
        nonlocal found
        if next(group for group in match.groups() if group is not None) == number:
            found = True
            return "\x00"
        return match.group(0)

    template = _SUBSCRIPT.sub(mark, " ".join(term.split()))
    return template if found else None


def _bound(template: str, term: str) -> str | None:
    """The last index of a written-out sum: what `term` has wherever `template` has \x00."""
    pieces = [re.escape("".join(piece.split())) for piece in template.split("\x00")]
    pattern = _SUBSCRIPT_TEXT.join(pieces)
    found = re.fullmatch(pattern, "".join(term.split()))
    if found is None:
        return None
    values = {value for value in found.groups() if value is not None}
    return values.pop() if len(values) == 1 else None


def _group_edge(text: str, position: int, step: int) -> int:
    """Where the expression around `position` ends going left (step -1) or right (step 1):
    at a bracket that is not closed within it, or at `=` or `,` outside brackets."""
    if step < 0:
        return group_start(text, position, stops="=,") + 1
    return group_end(text, position, stops="=,")


# E or Var with what it averages over as a subscript: `E_q[...]`, `E_{q,k}[...]`, `Var_{q,k}(...)`.
_AVERAGED_OVER = re.compile(
    r"(?<![A-Za-z0-9_])(E|Var)\s*_\s*(?:[{(]([^{}()]*)[})]|([A-Za-z][A-Za-z0-9]*))\s*(?=[\[(])"
)


def _without_averaged_over(text: str, vectors: Sequence[str]) -> str:
    """`E_{q,k}[q·k]` -> `E[q·k]`: a subscript naming the random vectors (or their components)
    the mean is taken over says what E already means here, where every E and Var is over all
    of them; any other subscript is left for the reader to refuse."""

    def plain(match: re.Match[str]) -> str:
        over = match.group(2) if match.group(2) is not None else match.group(3)
        names = [name for name in re.split(r"[\s,;]+", over) if name]
        if names and all(re.sub(r"_\w+$", "", name) in vectors for name in names):
            return match.group(1)
        return match.group(0)

    return _AVERAGED_OVER.sub(plain, text) if vectors else text


def _square_brackets_to_calls(text: str) -> str:
    """`E[x]` and `Var[x]` become `E(x)` and `Var(x)`."""
    while match := _OPERATOR_BRACKET.search(text):
        close = matching_close(text, match.end() - 1, ROUND_AND_SQUARE)
        if close is None:
            raise AnswerError(
                f"could not read this: the `[` after {match.group(1)} is never closed"
            )
        text = f"{text[: match.end() - 1]}({text[match.end() : close]}){text[close + 1 :]}"
    return text


def _mark_dot_products(text: str, vectors: Sequence[str]) -> str:
    if not vectors:
        return text
    names = "|".join(re.escape(v) for v in sorted(vectors, key=len, reverse=True))
    first = rf"(?<![A-Za-z_\\])({names})"
    second = rf"({names})(?![A-Za-z0-9_])"
    operator = r"\s*(?:\*|\.|@|⊤|\^\s*T(?![A-Za-z0-9_])|\^\s*\(\s*T\s*\))?\s*"
    written = re.compile(rf"{first}(?![A-Za-z0-9_]){operator}{second}")
    run_together = re.compile(first + second)
    called = re.compile(
        rf"(?<![A-Za-z0-9_])dot\s*\(\s*({names})\s*,\s*({names})\s*\)"
        rf"|⟨\s*({names})\s*,\s*({names})\s*⟩"
    )

    def marker(match: re.Match[str]) -> str:
        first, second = (group for group in match.groups() if group is not None)
        return dot_marker(first, second)

    for pattern in (called, written, run_together):
        text = pattern.sub(marker, text)
    return text


def _mark_derivatives(text: str, quantities: Collection[str], rename: Mapping[str, str]) -> str:
    side = rf"(?:\(\s*∂\s*({_NAME})\s*\)|∂\s*({_NAME}))"
    partial = re.compile(rf"{side}\s*/\s*{side}")
    total = re.compile(rf"(?<![A-Za-z0-9_])d\s*({_NAME})\s*/\s*d\s*({_NAME})(?![A-Za-z0-9_])")

    def marker(match: re.Match[str]) -> str:
        quantity, variable = (group for group in match.groups() if group is not None)
        return derivative_marker(rename.get(quantity, quantity), rename.get(variable, variable))

    def total_marker(match: re.Match[str]) -> str:
        # `dk/dk` is d_k/d_k in most questions: `d` means a derivative only of a named quantity.
        if rename.get(match.group(1), match.group(1)) not in quantities:
            return match.group(0)
        return marker(match)

    text = _mark_operators(partial.sub(marker, text), rename)
    if "∂" in text:
        raise AnswerError("could not read this: write a derivative as ∂p_i/∂s_j")
    return total.sub(total_marker, text)


# `∂/∂v_j`, `(∂)/(∂ v_j)` (from \frac{\partial}{\partial v_j}): a derivative of what follows.
_OPERATOR_CORE = rf"(?:\(\s*∂\s*\)|∂)\s*/\s*(?:\(\s*∂\s*({_NAME})\s*\)|∂\s*({_NAME}))"
_OPERATOR = re.compile(rf"\(\s*{_OPERATOR_CORE}\s*\)|{_OPERATOR_CORE}")


# More derivative operators than this in one side are refused: each may double the terms.
MAX_OPERATORS = 4


def _mark_operators(text: str, rename: Mapping[str, str]) -> str:
    """`∂/∂v_j Σ_t a_t v_t` -> `sum(zzdop_v_j*(Σ_t a_t v_t))`: the operator covers what follows
    it as a sum's sign does (up to the next `+`, `-`, `=` or closing bracket)."""
    if len(_OPERATOR.findall(text)) > MAX_OPERATORS:
        raise AnswerError(
            f"could not read this: write at most {MAX_OPERATORS} derivatives ∂/∂x in one expression"
        )
    found = _OPERATOR.search(text)
    if found is None:
        return text
    variable = next(group for group in found.groups() if group is not None)
    body_end = _body_end(text, found.end())
    body = text[found.end() : body_end].strip()
    if not body:
        raise AnswerError("could not read this: write what to differentiate after ∂/∂x")
    marked = (
        f"sum({operator_marker(rename.get(variable, variable))}*({_mark_operators(body, rename)}))"
    )
    return text[: found.start()] + marked + _mark_operators(text[body_end:], rename)


class PartialSum(AnswerError):
    """A sum whose written bounds do not run over its index's whole range (`Σ_{a=2}^{d_k}`):
    a different sum from the one over all components, judged wrong, not unreadable."""


@dataclass(frozen=True)
class _Ranges:
    """The range each index runs over (`a` -> `d_k`), with the spellings of those names."""

    sizes: Mapping[str, str]
    rename: Mapping[str, str]
    dimension: str

    def check(self, index: str, lower: str | None, upper: str | None) -> None:
        """Raise PartialSum unless the bounds run over all of `index`'s range: 1..size, or
        0..size-1 for a learner who counts components from 0; no bounds at all, or a lower
        bound 0 or 1 alone, also mean the whole range. A vector's index runs to its dimension
        (d_k); another index (softmax positions) to a count the drill may name as it likes, so
        any one name that is not an index is taken as that count."""
        size = self.sizes.get(index)
        if size is None or (lower is None and upper is None):
            return
        low = _plain(lower) if lower is not None else "1"
        if upper is None:
            if low in {"0", "1"}:
                return
            raise PartialSum(self._message(index, lower, upper, size))
        high = _plain(upper)
        named = self.rename.get(high, high)
        offset = re.fullmatch(r"(.+?)-1", high)
        if offset is not None:
            top, zero_based = self.rename.get(offset.group(1), offset.group(1)), True
        else:
            top, zero_based = named, False
        if low == ("0" if zero_based else "1") and self._is_count(top, size):
            return
        raise PartialSum(self._message(index, lower, upper, size))

    def _is_count(self, name: str, size: str) -> bool:
        if name == size:
            return True
        word = re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?", name) is not None
        return size != self.dimension and word and name not in self.sizes

    @staticmethod
    def _message(index: str, lower: str | None, upper: str | None, size: str) -> str:
        low = _shown(lower) if lower is not None else "1"
        high = _shown(upper) if upper is not None else size
        return (
            f"this sum runs over {index} = {low}..{high}, which is not the whole range "
            f"{index} = 1..{size}: it is a different sum"
        )


def _plain(bound: str) -> str:
    """A bound without spaces and brackets: `(d_(k) - 1)` -> `d_k-1`."""
    return re.sub(r"[\s(){}]", "", bound)


def _shown(bound: str) -> str:
    return re.sub(r"_\(([A-Za-z0-9]+)\)", r"_\1", _plain(bound).replace("-", "−"))


def _mark_sums(text: str, indices: set[str], ranges: _Ranges | None = None) -> str:
    """Rewrite every indexed sum, innermost bodies included, as `sum(zzsum_a*(body))`; with
    `ranges`, a sum whose bounds leave out part of its index's range raises PartialSum."""
    for match in _SUM_WORD.finditer(text):
        head_end, index, lower, upper = _read_sum_head(text, match.end())
        if index is None:
            continue  # `sum(...)` without an index: the plain function, read as it is
        if not index or lower == "" or upper == "":
            raise AnswerError(
                "could not read this: a sum's index or bound is empty; write it as Σ_{a=1}^{d_k}"
            )
        if index not in indices:
            known = ", ".join(sorted(indices)) or "none here"
            raise AnswerError(
                f"could not read this: a sum runs over `{index}`, which is not an index "
                f"(indices: {known})"
            )
        if ranges is not None:
            ranges.check(index, lower, upper)
        body_end = _body_end(text, head_end, index)
        body = text[head_end:body_end].strip()
        if not body:
            raise AnswerError("could not read this: a sum needs a term after it, as in Σ_a x_a")
        rewritten = f"sum({sum_marker(index)}*({_mark_sums(body, indices, ranges)}))"
        return text[: match.start()] + rewritten + _mark_sums(text[body_end:], indices, ranges)
    return text


# A limit after `sum`: `_a`, `_(a=1)`, `^(d_k)`, `^(d_(k)-1)` (one level of brackets inside).
_LIMIT = re.compile(r"\s*([_^])\s*(\((?:[^()]|\([^()]*\))*\)|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)?)")


def _read_sum_head(text: str, position: int) -> tuple[int, str | None, str | None, str | None]:
    """Read `_a`, `_(a=1)` and `^(d_k)` limits after `sum`: where the body starts, the index,
    and the lower and upper bounds as written (None when not written)."""
    index = lower = upper = None
    for _ in range(2):
        found = _LIMIT.match(text, position)
        if found is None:
            break
        position = found.end()
        written = found.group(2)
        if written.startswith("("):
            written = written[1:-1]
        if found.group(1) == "_":
            # An unbraced subscript `sum_aq_a` is not split; `sum_a` is the usual spelling.
            ranged = _ranged_head(written)
            if ranged is not None:  # `sum_{i=1..d_k}`, `sum_{1≤i≤d_k}`: both bounds at once
                index, lower, upper = ranged
                continue
            index, equals, start = (part.strip() for part in written.partition("="))
            lower = start if equals else None
        else:
            upper = written.strip()
    return position, index, lower, upper


# A sum's range written in its subscript: `i=1..d_k` (or `...`, `…`, `1, …, d_k`), `1≤i≤d_k`,
# `0<=i<d_k`.
_DOTTED_RANGE = re.compile(r"([A-Za-z])\s*=\s*([^.=,]+?)\s*,?\s*(?:\.\.\.?|…)\s*,?\s*([^.=,]+)")
_BETWEEN = re.compile(r"([^<≤=]+?)\s*(?:≤|<=)\s*([A-Za-z])\s*(≤|<=|<)\s*([^<≤=]+)")


def _ranged_head(written: str) -> tuple[str, str, str] | None:
    """`i=1..d_k` -> (i, 1, d_k); `1≤i≤d_k` -> (i, 1, d_k); `0≤i<d_k` -> (i, 0, d_k-1): a sum's
    index with both bounds written in its subscript; None for any other subscript."""
    if found := _DOTTED_RANGE.fullmatch(written.strip()):
        return found.group(1), found.group(2).strip(), found.group(3).strip()
    if found := _BETWEEN.fullmatch(written.strip()):
        upper = found.group(4).strip()
        if found.group(3) == "<":
            upper = f"({upper})-1"
        return found.group(2), found.group(1).strip(), upper
    return None


def _body_end(text: str, start: int, index: str = "") -> int:
    """Where a sum's body ends: at `+`, `-`, `=` or `,` outside brackets, or a closing bracket.

    A term after `+` or `-` that still uses the sum's index (`Σ_a E[q_a²] - E[q_a]²`) belongs to
    the sum: its index is bound nowhere else.
    """
    end = group_end(text, start, ROUND_AND_SQUARE, stops=",=")
    for sign in top_level("+-", text, start, end, ROUND_AND_SQUARE):
        position = sign.start()
        previous = text[start:position].rstrip()[-1:]  # what stands before the sign
        if previous not in {"", "*", "/", "^", "("}:
            exponent = previous in "eE" and position >= 2 and text[position - 2].isdigit()
            if not exponent and not _uses_index(_next_term(text, position + 1), index):
                return position  # a sign after an operator, or in 1e-3, belongs to the term
    return end


def _next_term(text: str, start: int) -> str:
    """The term from `start` up to the next `+`, `-`, `=` or `,` outside brackets."""
    return text[start : _body_end(text, start)]


def _uses_index(term: str, index: str) -> bool:
    if not index or _SUM_WORD.search(term):
        return False  # a term with its own sum is that sum's business
    return re.search(rf"_\s*\{{?\s*{re.escape(index)}(?![A-Za-z0-9])", term) is not None
