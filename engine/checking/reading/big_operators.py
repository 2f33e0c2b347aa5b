"""Read sums and products over an index letter, `Σ_{i=1}^{n} f` and `\\prod_{j=1}^{n} f`.

Learners write the count of a repeated term as a sum: `Σ_{i=1}^{d_k} 1` for Var(q·k),
`\\sum_{i=1}^{T}\\sum_{j=1}^{T} 2 d_k` for the FLOPs of Q Kᵀ, `sum_{j=1}^{i} 1` for the keys a
causal query sees. Whatever letter names the index, a sum over it of a term that does not depend
on it is the term times the number of values the index takes, and a product is the term to that
power. A sum of a term that does depend on its index, over the whole family (no bounds, or from
1 to a count: `Σ_k exp(s_k)`, `\\sum_{j=1}^{T} e^{s_j}`), is read as `sum(term, j)` (a product as
`prod(term, j)`) with the index renamed to the first free letter of j, k, i, l, m, so that the
letter the learner chose does not matter; `numeric` writes such a sum out over a few terms. A
sum written out with an ellipsis, `x_1 + x_2 + … + x_n` (or `...`, `\\cdots`: one term with its
subscript 1, 2, ... and last a count), is first rewritten as the sum it stands for. Other sums
(to another index, as in `Σ_{j=1}^{i} s_j`, or to a number) are left as written for the parser
to refuse by name. This pass rewrites sums (innermost first) as plain text, before the rest of
the reading; nothing is evaluated.

Spellings read: `Σ`, `∑`, `\\sum`, `sum`, `Π`, `∏`, `\\prod`, `prod`; then the index as `_i`,
`_{i=1}` or `_(i=1)`, then the upper bound as `^n`, `^{n}` or `^(n)` (either order, with an
optional `\\limits`); the term runs to the next `+`, `-`, relation or comma outside brackets.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from engine.checking.reading.brackets import (
    BRACES_AND_ROUND,
    group_end,
    group_start,
    matching_close,
    top_level,
)

# Bounds that keep this pass linear in practice: each sum may re-read the terms after it.
MAX_OPERATORS = 6
MAX_LENGTH = 2000
_OPERATOR = re.compile(r"(?:\\sum|\\prod|Σ|∑|∏|Π|(?<![A-Za-z0-9_\\])(?:sum|prod)(?=\s*_))")
_LIMITS = re.compile(r"\s*\\(?:limits|nolimits)(?![A-Za-z])")
_INDEX = re.compile(r"\s*([A-Za-z])\s*(?:=\s*(.+))?\s*$", re.DOTALL)
_SUBSCRIPT_INDEX = dict(zip("ᵢⱼₖₗₘₙ", "ijklmn", strict=True))
# A word as the term may spell it: a name with an optional subscript, `q_i`, `d_k`, `A_{ij}`.
_WORD = re.compile(r"[A-Za-z]+(?:_(?:\{[A-Za-z0-9, ]*\}|[A-Za-z0-9]+))?")
# The term of a dot product written as a sum: `q_i k_i`, `q_i*k_i`, `q_i · k_i`, `q_{i} k_{i}`.
_DOT_TERM = re.compile(
    r"([A-Za-z])_\{?([A-Za-z])\}?\s*(?:[*·⋅]|\\cdot)?\s*([A-Za-z])_\{?([A-Za-z])\}?"
)
_TERM_ENDS = "+-=≈,<>≤≥−–"
# After these a sign belongs to the operand that follows (`e^-m`, `x * -1`), not a new term.
_SIGNED = {"^", "*", "/", "·", "×"}


def expand_big_operators(
    text: str, known: Collection[str] = (), families: Collection[str] | None = None
) -> str:
    """Rewrite every bounded sum or product whose term does not depend on its index.

    `known` holds the question's multi-letter symbols (`d_k`): their subscript is part of their
    name, so `d_k` does not depend on an index `k`. With `families`, the bases of the indexed
    families of a typed answer's question (`s` for s_j), a sum written as a function without
    its index is read too (`_index_free_sums`); a derivation step spells its sums its own way.
    """
    if len(text) > MAX_LENGTH:
        return text
    if families is not None:
        text = _index_free_sums(text, frozenset(known), frozenset(families))
    text = _written_out_series(text, frozenset(known))
    operators = len(_OPERATOR.findall(text))
    if not operators or operators > MAX_OPERATORS:
        return text  # more sums than any answer has are left for the parser to refuse
    return _expand(text, frozenset(known), depth=0)


# `sum(` written as a function, without an index after it.
_SUM_CALL = re.compile(r"(?<![A-Za-z0-9_\\.])sum\s*\(")
# Python's `sum(t for j in range(n))`.
_GENERATOR = re.compile(r"^(.+?)\s+for\s+([A-Za-z])\s+in\s+range\s*\(.*\)\s*$", re.DOTALL)
_INDEX_LETTERS = "ijklmn"


def _index_free_sums(text: str, known: frozenset[str], families: frozenset[str]) -> str:
    """`sum(exp(s_j - m))`, Python's `sum(exp(s_j - m) for j in range(n))` and NumPy's
    `sum(exp(s - m))` over the vector s: a sum written without its index runs over the one index
    its term carries (or over the family it names whole), so each is rewritten `sum_j (...)`."""
    if "sum" not in text:
        return text
    out: list[str] = []
    i = 0
    for _ in range(MAX_OPERATORS):
        match = _SUM_CALL.search(text, i)
        if match is None:
            break
        group = _group(text, match.end() - 1)
        if group is None:
            break
        inner, end = group
        rewritten = _indexed(inner, known, families)
        out.append(text[i : match.start()])
        out.append(text[match.start() : end] if rewritten is None else rewritten)
        i = end
    out.append(text[i:])
    return "".join(out)


def _indexed(inner: str, known: frozenset[str], families: frozenset[str]) -> str | None:
    commas = len(list(top_level(",", inner)))
    if commas:
        # `sum(term, k)` names its index: read as Σ_k, so that the letter chosen does not matter.
        term, _, index = inner.rpartition(",")
        index = index.strip()
        single = commas == 1 and len(index) == 1 and index in _INDEX_LETTERS
        return f"sum_{index} ({term})" if single and term.strip() else None
    generator = _GENERATOR.match(inner)
    if generator:
        return f"sum_{generator.group(2)} ({generator.group(1)})"
    letters = _subscript_letters(inner, known)
    if len(letters) == 1:
        return f"sum_{letters.pop()} ({inner})"
    if letters or not families:
        return None
    whole = re.compile(r"(?<![A-Za-z0-9_\\])(" + "|".join(sorted(families)) + r")(?![\w(])")
    if not whole.search(inner):
        return None
    letter = _bound_letter(inner, known)
    if letter is None:
        return None
    return f"sum_{letter} ({whole.sub(lambda m: f'{m.group(1)}_{letter}', inner)})"


def _subscript_letters(term: str, known: frozenset[str]) -> set[str]:
    """The index letters `term` uses in subscripts (`s_j`), not counting declared names (`d_k`)
    nor a letter standing alone, which may be a symbol of its own (the maximum m)."""
    letters: set[str] = set()
    for word in _WORD.finditer(term):
        name = word.group()
        base, _, subscript = name.partition("_")
        plain = base + "_" + subscript.strip("{}").replace(",", "").replace(" ", "")
        if subscript and plain not in known and name not in known:
            letters |= {c for c in subscript if c in _INDEX_LETTERS}
    return letters


# `x_1 + x_2 + … + x_n`: a sum written out with an ellipsis.
_ELLIPSIS = re.compile(r"\\[cl]?dots(?![A-Za-z])|\.\.\.|…|⋯")
_SUBSCRIPT = re.compile(r"_(\{\s*([A-Za-z0-9]+(?:_[A-Za-z0-9]+)?)\s*\}|([A-Za-z0-9]))")


def _written_out_series(text: str, known: frozenset[str]) -> str:
    """Rewrite `t(1) + t(2) + … + t(n)` as `sum(t(j), j)` when every term is one term `t` with
    its index subscript 1, 2, ... and, last, a count (`n`, `T`); anything else is left as is."""
    if len(_ELLIPSIS.findall(text)) > MAX_OPERATORS:
        return text  # more than any answer writes: left for the parser to refuse
    for _ in range(MAX_OPERATORS):
        rewritten = None
        for match in _ELLIPSIS.finditer(text):
            rewritten = _series_at(text, match, known)
            if rewritten is not None:
                break
        if rewritten is None:
            return text
        text = rewritten
    return text


def _series_at(text: str, ellipsis: re.Match[str], known: frozenset[str]) -> str | None:
    start, end = _enclosing_group(text, ellipsis.start())
    pieces, cut = [], start  # the terms of the group, split at its top-level `+`
    for plus in top_level("+", text, start, end):
        pieces.append((cut, plus.start()))
        cut = plus.end()
    pieces.append((cut, end))
    where = next((k for k, (a, b) in enumerate(pieces) if a <= ellipsis.start() < b), None)
    if (
        where is None
        or where + 1 >= len(pieces)
        or text[slice(*pieces[where])].strip() != (ellipsis.group())
    ):
        return None
    last = text[slice(*pieces[where + 1])].strip()
    template, upper = _template(last, known)
    if template is None or upper is None or not _whole_range("1", upper):
        return None
    first = where
    for k in range(where - 1, -1, -1):
        shape, value = _template(text[slice(*pieces[k])].strip(), known)
        if shape != template or value is None or not value.isdigit():
            break
        first = k
        if value == "1":
            break
    if first == where or _template(text[slice(*pieces[first])].strip(), known)[1] != "1":
        return None
    series_start, series_end = pieces[first][0], pieces[where + 1][1]
    outside = text[:series_start] + text[series_end:] + template
    bound = _bound_letter(outside, known)
    if bound is None:
        return None
    term = template.replace("@", bound)
    if _term_end(term, 0) < len(term):  # `x_j - m`: the sum's term runs to the `-` otherwise
        term = f"({term})"
    # As the sum it stands for, read like any other: Σ_{j=1}^{d_k} q_j k_j is q·k.
    return f"{text[:series_start]} Σ_{{{bound}=1}}^{{{upper}}} {term} {text[series_end:]}"


def _template(term: str, known: frozenset[str]) -> tuple[str | None, str | None]:
    """`e^{s_n - m}` -> (`e^{s_@-m}`, `n`): the term with the subscript that varies marked.

    The varying subscript is a number, a letter or a braced name (`q_{d_k}`); None when there is
    not exactly one such value (every subscript with that value is marked)."""
    # A declared name such as d_k is not an index, unless it is one (`q_{d_k}`).
    alternatives = "|".join(map(re.escape, sorted(known, key=len, reverse=True)))
    names = re.sub(rf"(?<![{{\w])(?:{alternatives})(?!\w)", "", term) if known else term
    values = {m.group(2) or m.group(3) for m in _SUBSCRIPT.finditer(names)}
    candidates = [v for v in values if v.isdigit() or len(v) == 1 or "_" in v]
    if len(candidates) != 1:
        return None, None
    value = candidates[0]
    marked = _SUBSCRIPT.sub(
        lambda m: "_@" if (m.group(2) or m.group(3)) == value else m.group(), term
    )
    return "".join(marked.split()), value


def _enclosing_group(text: str, i: int) -> tuple[int, int]:
    """The span inside the innermost bracket around position i (the whole text at the top)."""
    return group_start(text, i) + 1, group_end(text, i)


def _expand(text: str, known: frozenset[str], depth: int) -> str:
    out: list[str] = []
    i = 0
    while True:
        match = _OPERATOR.search(text, i)
        if match is None:
            out.append(text[i:])
            return "".join(out)
        rewritten = _rewrite_one(text, match, known, depth)
        if rewritten is None:
            out.append(text[i : match.end()])
            i = match.end()
            continue
        replacement, end = rewritten
        out.append(text[i : match.start()])
        out.append(replacement)
        i = end


def _rewrite_one(
    text: str, match: re.Match[str], known: frozenset[str], depth: int
) -> tuple[str, int] | None:
    is_product = "prod" in match.group() or match.group() in {"Π", "∏"}
    i = match.end()
    index_spec = upper = None
    for _ in range(3):  # `_{...}`, `^{...}` and `\limits`, in either order
        limits = _LIMITS.match(text, i)
        if limits:
            i = limits.end()
            continue
        j = i
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and text[j] in _SUBSCRIPT_INDEX and index_spec is None:
            index_spec, i = _SUBSCRIPT_INDEX[text[j]], j + 1
        elif j < len(text) and text[j] in "_^":
            group = _group(text, j + 1)
            if group is None:
                return None
            if text[j] == "_" and index_spec is None:
                index_spec, i = group
            elif text[j] == "^" and upper is None:
                upper, i = group
            else:
                return None
        else:
            break
    spec = _INDEX.match(index_spec or "")
    if spec is None:
        return None
    letter, lower = spec.group(1), (spec.group(2) or "1").strip()
    end = _term_end(text, i)
    term = text[i:end].strip()
    if not term:
        return None
    dot = _DOT_TERM.match(term)
    rest = term[dot.end() :].strip() if dot else ""
    if (
        dot
        and not is_product
        and dot.group(2) == letter == dot.group(4)
        and (not rest or (rest[0] in "*/" and not _depends_on(rest, letter, known)))
    ):
        # Σ_i q_i k_i is the dot product q·k, whatever the index letter and bounds; a factor
        # that does not depend on the index comes out of the sum.
        return f"(({dot.group(1)}*{dot.group(3)}){rest})", end
    term = _expand(term, known, depth + 1)
    if upper is not None and _depends_on(upper, letter, known):
        return None
    if _depends_on(term, letter, known):
        # Σ_k exp(s_k): a sum (or product) over a whole indexed family, whatever the letter.
        if not _whole_range(lower, upper):
            return None
        bound = _bound_letter(text[: match.start()] + text[end:], known)
        if bound is None:
            return None
        operator = "prod" if is_product else "sum"
        return f"{operator}({_renamed(term, letter, bound, known)}, {bound})", end
    if upper is None:
        return None  # without bounds the number of terms is unknown
    count = f"(({upper}) - ({lower}) + 1)"
    if is_product:
        return f"(({term})^{count})", end
    return f"({count}*({term}))", end


def _whole_range(lower: str, upper: str | None) -> bool:
    """Whether the bounds run over the whole family: none, or from 0 or 1 to a count (`T`, `n`,
    `T_k`), not to another index (`i`) or a number."""
    if lower not in {"0", "1"}:
        return False
    if upper is None:
        return True
    upper = upper.strip()
    return bool(_WORD.fullmatch(upper)) and upper not in _BOUND_LETTERS


# The letters a sum's own index is renamed to, so that Σ_k exp(s_k) and Σ_j exp(s_j) read alike.
_BOUND_LETTERS = ("j", "k", "i", "l", "m")


def _bound_letter(outside: str, known: frozenset[str]) -> str | None:
    """The first of `_BOUND_LETTERS` that the text outside the sum does not use as an index."""
    return next((c for c in _BOUND_LETTERS if not _depends_on(outside, c, known)), None)


def _renamed(term: str, letter: str, bound: str, known: frozenset[str]) -> str:
    """`term` with the index `letter` written as `bound`, alone and in subscripts."""

    def rename(word: re.Match[str]) -> str:
        name = word.group()
        if word.start() > 0 and term[word.start() - 1] == "\\":
            return name
        if name == letter:
            return bound
        base, _, subscript = name.partition("_")
        plain = base + "_" + subscript.strip("{}").replace(",", "").replace(" ", "")
        if not subscript or plain in known or name in known:
            return name
        return base + "_" + subscript.replace(letter, bound)

    return _WORD.sub(rename, term)


def _group(text: str, i: int) -> tuple[str, int] | None:
    """The group after `_` or `^`: `{...}`, `(...)`, or one name or number."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return None
    if text[i] in "{(":
        j = matching_close(text, i, BRACES_AND_ROUND)
        if j is None or text[j] != ("}" if text[i] == "{" else ")"):
            return None
        return text[i + 1 : j], j + 1
    word = re.compile(r"[A-Za-z](?:_[A-Za-z0-9]+)?|\d+").match(text, i)
    return (word.group(), word.end()) if word else None


def _term_end(text: str, i: int) -> int:
    """Where the term of a sum that starts at `i` ends."""
    end = group_end(text, i)
    for found in top_level(_TERM_ENDS, text, i, end):
        before = text[i : found.start()].rstrip()  # empty: no operand yet
        if before and before[-1] not in _SIGNED:
            return found.start()
    return end


def _depends_on(term: str, letter: str, known: frozenset[str]) -> bool:
    """Whether `term` uses the index `letter`, alone or in a subscript (`q_i`, `A_{ij}`)."""
    for word in _WORD.finditer(term):
        if term[max(word.start() - 1, 0)] == "\\" and word.start() > 0:
            continue  # a LaTeX command such as \frac or \sqrt
        name = word.group()
        if name == letter:
            return True
        base, _, subscript = name.partition("_")
        if not subscript:
            continue
        plain = base + "_" + subscript.strip("{}").replace(",", "").replace(" ", "")
        if plain in known or name in known:
            continue
        if letter in subscript:
            return True
    return any(mark == letter for mark in (_SUBSCRIPT_INDEX.get(c) for c in term))
