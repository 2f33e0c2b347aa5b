"""Read set 15's stated answers as SymPy expressions, and evaluate matrix formulas on matrices.

The bank tests re-derive every formula independently (SymPy differentiation, sums, limits,
`sympy.stats`) and compare the derivation with what the bank says; these functions give them
the bank's side: the answer as the engine reads it, with symbols named as in the bank.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import sympy

from engine.bank.catalog import open_set
from engine.bank.model import QuestionSet
from engine.cards import Item
from engine.cards.catalogue import computation_named
from engine.cards.cloze import ClozeItem
from engine.cards.computation import Value
from engine.cards.typed import ExpressionItem
from engine.checking.equivalence.expression import read_expression
from engine.checking.reading.notation import names_used
from engine.checking.reading.safe_ast import Vocabulary


def truth(name: str, inputs: dict[str, Any]) -> Value:
    """What the catalogue's computation `name` gives for `inputs`, the inputs checked first as
    a bank's are when it loads."""
    computation = computation_named(name)
    computation.validate(inputs)
    return computation.truth(inputs)


@cache
def set_15(store: Path = Path("/nonexistent-attnquiz-store")) -> QuestionSet:
    return open_set("15", store)


def item_15(item_id: str) -> Item:
    found = set_15().item(item_id)
    assert found is not None, f"set 15 has no item {item_id!r}"
    return found


def symbolic_items() -> list[Item]:
    """Every item whose answer is a formula checked by SymPy: expressions and formula blanks."""
    return [
        i
        for i in set_15().items
        if isinstance(i, ExpressionItem) or (isinstance(i, ClozeItem) and i.check == "expression")
    ]


def stated_formula(item: Item) -> sympy.Expr:
    """The item's answer read as the engine reads it (aliases resolved, `^T` a transpose)."""
    assert isinstance(item, ExpressionItem | ClozeItem)
    text = item.asked().answer if isinstance(item, ClozeItem) else item.answer
    matrices = set(item.noncommutative)
    declared = set(item.symbols) | set(item.positive) | set(item.integer) | matrices
    known = declared | names_used(text, symbols=declared, aliases=item.symbols, matrices=matrices)
    vocabulary = Vocabulary(
        symbols=frozenset(known),
        positive=frozenset(item.positive),
        integer=frozenset(item.integer),
        matrices=frozenset(matrices),
    )
    return read_expression(text, vocabulary, aliases=item.symbols)


def by_name(expr: sympy.Expr, values: dict[str, Any]) -> sympy.Expr:
    """Substitute values for the expression's symbols, looked up by name."""
    return expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values})


def evaluate_on_matrices(expr: Any, values: dict[str, Any]) -> Any:
    """Evaluate a formula with matrix symbols replaced by SymPy matrices, keeping their order.

    `transpose(X)` is X.T, `softmax(X)` a row-wise softmax, products keep the order of their
    matrix factors (scalars commute), so a formula that swaps two matrices gives another value.
    """
    if isinstance(expr, sympy.Symbol):
        return values.get(expr.name, expr)
    if expr.is_Number:
        return expr
    args = [evaluate_on_matrices(a, values) for a in expr.args]
    name = getattr(expr.func, "__name__", "")
    if name == "transpose":
        return args[0].T
    if name == "softmax":
        rows = args[0]
        exps = rows.applyfunc(sympy.exp)
        return sympy.Matrix(
            rows.rows,
            rows.cols,
            lambda i, j: exps[i, j] / sum(exps[i, k] for k in range(rows.cols)),
        )
    if expr.is_Mul:
        scalar, product = sympy.Integer(1), None
        for a in args:
            if isinstance(a, sympy.MatrixBase):
                product = a if product is None else product * a
            else:
                scalar = scalar * a
        return scalar if product is None else scalar * product
    if expr.is_Add:
        total = args[0]
        for a in args[1:]:
            total = total + a
        return total
    if expr.is_Pow:
        return args[0] ** args[1]
    return expr.func(*args)


def symbol_matrix(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}{i}{j}"))
