"""Whether two sides of a step are equal: scalars, polynomials in random terms, written-out sums.

Plain scalars are compared by `expression.equivalent` (SymPy, or agreement at random points).
Sums over an index, derivatives, Kronecker deltas and defined quantities such as p_i cannot be
compared that way, so both sides are written out for a small number of terms (each size in
`CONCRETE_SIZES`) and for every choice of the free indices, so that both i = j and i ≠ j are
tried, and the written-out forms are compared instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.checking.derivation.notation import read_marker, sum_marker
from engine.checking.derivation.random_polynomial import (
    CannotEvaluate,
    RandomPolynomial,
    at_normal,
    indices_of,
    polynomial_moments,
)
from engine.checking.equivalence.expression import equivalent

if TYPE_CHECKING:
    from engine.checking.derivation.reader import StepReader

# Sums over an index and derivatives are compared with this many terms, for every choice of the
# free indices (so that both i = j and i ≠ j are tried).
CONCRETE_SIZES = (2, 3)
MAX_INDEX_CHOICES = 30


def same(reader: StepReader, left: RandomPolynomial, right: RandomPolynomial) -> bool:
    import sympy

    zero = sympy.Integer(0)
    return all(
        equal_scalars(reader, left.get(term, zero), right.get(term, zero))
        for term in set(left) | set(right)
    )


def follows(reader: StepReader, left: RandomPolynomial, right: RandomPolynomial) -> bool:
    """Whether `right` is a valid step from `left`.

    Both are reduced with the components' moments left unknown, so equal sides are equal by the
    rules (linearity, independence, the definitions), not because N(0, 1) makes two different
    quantities the same number. A step may also apply the stated assumption openly: the moments
    it no longer mentions (E[q_a] written as 0, E[q_a²] as 1) are put in on the left. A moment
    the line still mentions keeps its generic value, so E[q_a k_a]² for E[q_a k_a] fails.
    """
    if same(reader, left, right):
        return True
    applied = polynomial_moments(left) - polynomial_moments(right)
    return bool(applied) and same(reader, at_normal(left, applied), right)


def equal_scalars(reader: StepReader, a: Any, b: Any) -> bool:
    if a == b:
        return True
    vocabulary = reader.vocabulary(set())
    if not (_needs_terms(reader, a) or _needs_terms(reader, b)):
        return equivalent(a, b, vocabulary)
    free = sorted(_free_indices(reader, a) | _free_indices(reader, b))
    for size in CONCRETE_SIZES:
        choices = itertools.islice(
            itertools.product(range(1, size + 1), repeat=len(free)), MAX_INDEX_CHOICES
        )
        for choice in choices:
            values = dict(zip(free, choice, strict=True))
            left = written_out(reader, a, size, values)
            right = written_out(reader, b, size, values)
            if not equivalent(left, right, vocabulary):
                return False
    return True


def _needs_terms(reader: StepReader, expr: Any) -> bool:
    import sympy

    for symbol in expr.free_symbols:
        marker = read_marker(str(symbol))
        family, _ = reader.family_of(str(symbol))
        if (marker is not None and marker[0] != "dot") or family in reader.family_definitions:
            return True
        if reader.delta_indices(str(symbol)):
            return True
    return any(str(f.func) == "sum" for f in expr.atoms(sympy.Function))


def _free_indices(reader: StepReader, expr: Any) -> set[str]:
    found: set[str] = set()
    for symbol in expr.free_symbols:
        name = str(symbol)
        marker = read_marker(name)
        if marker is not None and marker[0] == "derivative":
            for part in marker[1]:
                found |= indices_of(part, reader.index_sizes)
        elif marker is None:
            found |= indices_of(name, reader.index_sizes)
    return found


def written_out(
    reader: StepReader, expr: Any, size: int, values: Mapping[str, int], depth: int = 0
) -> Any:
    """`expr` with every sum written out over 1..size and the free indices set to values."""
    import sympy

    if depth > 2 * len(reader.assumptions.definitions) + 20:
        raise CannotEvaluate("a definition refers to itself")
    if expr.is_Symbol:
        return _written_symbol(reader, expr, size, values, depth)
    if not expr.args:
        return expr
    if str(expr.func) == "sum":
        marker = next(iter(s for s in expr.free_symbols if str(s).startswith("zzsum_")), None)
        if marker is None:
            if expr.args[0] == 0:  # Σ_a 0·0: the body, and with it the index, is zero
                return sympy.Integer(0)
            raise CannotEvaluate("say which index a sum runs over, as in Σ_j e^{s_j}")
        index = str(marker)[len(sum_marker("")) :]
        body = expr.args[0] / marker
        return sympy.Add(
            *(
                written_out(reader, body, size, {**values, index: v}, depth + 1)
                for v in range(1, size + 1)
            )
        )
    arguments = [written_out(reader, arg, size, values, depth + 1) for arg in expr.args]
    return expr.func(*arguments)


def _written_symbol(
    reader: StepReader, expr: Any, size: int, values: Mapping[str, int], depth: int
) -> Any:
    import sympy

    name = str(expr)
    if name in {reader.assumptions.count, reader.assumptions.dimension}:
        return sympy.Integer(size)
    marker = read_marker(name)
    if marker is not None and marker[0] == "derivative":
        quantity, variable = marker[1]
        top = written_out(reader, sympy.Symbol(quantity), size, values, depth + 1)
        by = written_out(reader, sympy.Symbol(variable), size, values, depth + 1)
        if not by.is_Symbol:
            raise CannotEvaluate(f"cannot differentiate by {variable}")
        return sympy.diff(top, by)
    pair = reader.delta_indices(name)
    if pair and all(index in values for index in pair):
        return sympy.Integer(int(values[pair[0]] == values[pair[1]]))
    family, index = reader.family_of(name)
    if family is None or index is None:
        if name in reader.definitions:
            return written_out(reader, reader.definitions[name], size, values, depth + 1)
        return expr
    if index not in values:
        return expr
    if family in reader.family_definitions:
        own_index, definition = reader.family_definitions[family]
        return written_out(reader, definition, size, {own_index: values[index]}, depth + 1)
    return sympy.Symbol(f"{family}_{values[index]}")
