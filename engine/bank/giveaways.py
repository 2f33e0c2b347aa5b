"""Lint warnings for cards that answer themselves.

- A hint that contains its item's answer: the answer written out (`(d_k, T_k)` in the hint of a
  shape card), a formula equivalent to an expression answer in any spelling (`d_k^(1/2)` for
  `sqrt(d_k)`), or a calculation that works out to a numeric answer (`√256` for a card whose
  answer is 16, `T d_k / (4 (d_k + T))` on a card that gives T and d_k). Formulas are read by
  the same safe reader as typed answers, never evaluated as Python. A hint that gives the
  answer away by reasoning alone ("keys 1, 2, …, i") is left to the author.
- Multiple-choice items whose right option is the longest one so often that a test-wise
  learner could pick it without knowing the answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from engine.cards.base import Item
from engine.cards.choice import ChoiceItem
from engine.cards.cloze import ClozeItem
from engine.cards.computed import ComputedItem
from engine.cards.typed import ExpressionItem, NumberItem, ShapeItem
from engine.cards.vector import VectorItem
from engine.errors import AnswerError

_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵀ"
_SUBSCRIPTS = "ᵢⱼₖₐₒₓₙₘₜ₀₁₂₃₄₅₆₇₈₉"
_TOKEN = re.compile(
    rf"(?P<number>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?[{_SUPERSCRIPTS}]*)"
    rf"|(?P<name>[A-Za-zπδ_][A-Za-z0-9_{{}}{_SUBSCRIPTS}]*[{_SUPERSCRIPTS}]*)"
    r"|(?P<op>\*\*|[-+−*/^·×√()])"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
_FUNCTIONS = {"sqrt", "ln", "log", "exp", "e", "pi", "π"}
MAX_SPAN = 15  # tokens in one calculation
MAX_CANDIDATES = 300  # calculations tried per hint
MAX_FORMULAS = 60  # formulas compared with an expression answer per hint (each costs more)
# A right option that is the longest in more than this share of the choice items is a cue.
LONGEST_SHARE_LIMIT = 0.4
MIN_CHOICE_ITEMS = 6


def hint_giveaway(item: Item) -> str | None:
    """Why the item's hint gives its answer away, or None when it does not (as far as seen)."""
    hint = item.hint
    if not hint:
        return None
    try:
        return _literal(item, hint) or _calculated(item, hint)
    except Exception:  # an answer that cannot be worked out is reported by the other checks
        return None


def longest_option_share(items: Iterable[Item]) -> tuple[int, int]:
    """(choice items whose right option is strictly the longest, choice items)."""
    longest = total = 0
    for item in items:
        if isinstance(item, ChoiceItem):
            total += 1
            lengths = [len(option) for option in item.options]
            right = lengths[item.answer - 1]
            longest += right == max(lengths) and lengths.count(right) == 1
    return longest, total


def longest_option_warning(items: Iterable[Item]) -> str | None:
    longest, total = longest_option_share(items)
    if total >= MIN_CHOICE_ITEMS and longest > LONGEST_SHARE_LIMIT * total:
        return (
            f"in {longest} of {total} multiple-choice items the right option is the longest; "
            "a learner could pick it without knowing the answer (shorten it or lengthen others)"
        )
    return None


# -- the answer written in the hint ---------------------------------------------------------------
def _written_answers(item: Item) -> list[str]:
    if isinstance(item, ClozeItem):
        return [item.asked().answer, *item.accept]
    if isinstance(item, ExpressionItem | ShapeItem):
        return [item.answer]
    if isinstance(item, ChoiceItem):
        return [item.answer_text()]
    return []


def _squeezed(text: str) -> str:
    """Letters, digits and the operators that change a formula, lower case: `sqrt(d_k)`,
    `√d_k` and `√dk` all read `sqrtdk`, `A @ V` reads `a@v`, `2·T²` and `2 T^2` read `2t2`."""
    text = unicodedata.normalize("NFKC", text).replace("√", "sqrt").replace("−", "-")
    return re.sub(r"[^0-9a-z@/+\-]", "", text.lower())


def _literal(item: Item, hint: str) -> str | None:
    hint_flat = _squeezed(hint)
    for answer in _written_answers(item):
        flat = _squeezed(answer)
        # A lone symbol or digit (`0`, `d_k`) appears in many honest hints; a formula, a shape
        # or an option's text does not, unless the hint gives it.
        formula = len(flat) >= 3 and (len(answer.split()) > 1 or re.search(r"[^\w]", answer))
        if formula and flat in hint_flat:
            return f"the hint gives the answer away: it contains {answer!r}"
    return None


# -- a calculation in the hint that gives the answer -------------------------------------------
def _truth(item: Item) -> tuple[float | list[Any], float | None, float | None] | None:
    if isinstance(item, NumberItem):
        return item.expected_value(), item.abs_tol, item.rel_tol
    if isinstance(item, ComputedItem):
        return item.truth(), item.abs_tol, item.rel_tol
    if isinstance(item, VectorItem):
        return list(item.answer), item.abs_tol, item.rel_tol
    return None


def _calculated(item: Item, hint: str) -> str | None:
    if isinstance(item, ExpressionItem) or (
        isinstance(item, ClozeItem) and item.check == "expression"
    ):
        return _equivalent_formula(item, hint)
    found = _truth(item)
    if found is None:
        return None
    truth, abs_tol, rel_tol = found
    if isinstance(truth, list):
        from engine.checking import check_vector

        for match in re.finditer(r"\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]", hint):
            if check_vector(match.group(0), truth, abs_tol=abs_tol, rel_tol=rel_tol).correct:
                return f"the hint gives the answer away: {match.group(0)!r} is the answer"
        return None
    from engine.checking import check_number

    values = _scalar_inputs(item)
    for text, written, _ in _calculations(hint, values):
        try:
            if check_number(text, float(truth), abs_tol=abs_tol, rel_tol=rel_tol).correct:
                return f"the hint gives the answer away: {written!r} works out to the answer"
        except (AnswerError, ValueError, ArithmeticError):
            continue
    return None


def _equivalent_formula(item: ExpressionItem | ClozeItem, hint: str) -> str | None:
    """A formula in the hint, in the answer's symbols, that is equivalent to the answer (in any
    spelling: `√d_k` for `sqrt(d_k)`, `pᵢ(1 − pᵢ)` for `p_i (1 - p_i)`)."""
    from engine.checking import check_expression

    answer = item.asked().answer if isinstance(item, ClozeItem) else item.answer
    names = {_name_key(n) for n in re.findall(r"[A-Za-z_][A-Za-z0-9_{}]*", answer)}
    names |= {_name_key(a) for n, spellings in item.symbols.items() for a in (n, *spellings)}
    tried = 0
    for text, written, tokens in _calculations(hint, {}, frozenset(names)):
        if tokens < 2:
            continue  # a lone symbol or number says little: `d_k` is in many honest hints
        tried += 1
        if tried > MAX_FORMULAS:
            break
        verdict = check_expression(
            text,
            answer,
            aliases=item.symbols,
            positive=item.positive,
            integer=item.integer,
            noncommutative=item.noncommutative,
            ranges=getattr(item, "ranges", {}),
        )
        if verdict.correct:
            return f"the hint gives the answer away: {written!r} is the answer"
    return None


def _name_key(name: str) -> str:
    """A symbol as written anywhere: `p_i`, `p_{i}` and `pᵢ` all give `pi`."""
    return re.sub(r"[_{}]", "", unicodedata.normalize("NFKC", name))


def _scalar_inputs(item: Item) -> dict[str, str]:
    """The computed item's numeric inputs, by name and the bank's spellings of that name."""
    if not isinstance(item, ComputedItem):
        return {}
    values: dict[str, str] = {}
    for name, value in item.inputs.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            for spelling in (name, *getattr(item, "symbols", {}).get(name, ())):
                values[spelling] = f"({value})"
    return values


def _calculations(
    hint: str, values: dict[str, str], symbols: frozenset[str] = frozenset()
) -> Iterator[tuple[str, str, int]]:
    """Every stretch of the hint that reads as a calculation: (with the inputs filled in, as
    written, its number of tokens), at most MAX_CANDIDATES of them. Names are functions,
    inputs (`values`) and `symbols` (compared as `_name_key` gives them)."""
    runs: list[list[tuple[str, str, int, int]]] = [[]]
    for match in _TOKEN.finditer(hint):
        kind, text = match.lastgroup or "other", match.group(0)
        base = text.rstrip(_SUPERSCRIPTS)
        if kind == "space":
            continue
        known = base in _FUNCTIONS or base in values or _name_key(base) in symbols
        if kind == "name" and not known:
            kind = "other"
        if kind == "other":
            runs.append([])
            continue
        if kind == "name" and base in values:
            text = values[base] + text[len(base) :]
        runs[-1].append((kind, text, match.start(), match.end()))
    seen: set[str] = set()
    for run in runs:
        for start in range(len(run)):
            if run[start][0] == "op" and run[start][1] not in "(√-−":
                continue
            for end in range(start + 1, min(len(run), start + MAX_SPAN) + 1):
                last_kind, last = run[end - 1][:2]
                if last_kind == "op" and last != ")":
                    continue
                text = " ".join(token[1] for token in run[start:end])
                if text.count("(") != text.count(")") or text in seen:
                    continue
                seen.add(text)
                if len(seen) > MAX_CANDIDATES:
                    return
                yield text, hint[run[start][2] : run[end - 1][3]], end - start
