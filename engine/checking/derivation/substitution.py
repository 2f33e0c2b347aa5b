"""Numbers put in for E, Var and Σ must be their own values, with the operations around them.

A step such as Σ_a E[q_a] E[k_a] = Σ_a 0 · 0 puts in the value of each moment. Compared by
value alone, Σ_a 1 · 0, Σ_a (0 + 0) or d_k²/d_k² (for Σ_a Var(q_a k_a)/d_k) pass as well, since
they happen to give the same number; a grader marks them wrong, because a moment got a value
that is not its own, or a product became a sum, or a minus became a plus. `Substitutions.misplaced`
walks the two sides as written (their syntax trees, nothing simplified) side by side: where
the line before has a random quantity (an E, a Var, a Σ, a component) and the line has plain
numbers in its place, the numbers must be that quantity's value, and an operation joining
random quantities must be kept (× stays ×, − stays − or becomes + of a negated term). Where
the two sides do not line up, nothing is concluded: the value comparison has the last word.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from engine.checking.derivation.notation import OPERATOR_PREFIX, read_marker
from engine.checking.derivation.random_polynomial import CannotEvaluate
from engine.checking.reading.safe_ast import Vocabulary
from engine.checking.reading.to_sympy import build
from engine.errors import AnswerError

if TYPE_CHECKING:
    from engine.checking.derivation.reader import StepReader

_RANDOM_CALLS = {"E", "Var", "sum"}
_MAX_DEPTH = 40


class Substitutions:
    """Whether the values a line puts in for random quantities are theirs, with one reader."""

    def __init__(self, reader: StepReader) -> None:
        self.reader = reader

    def misplaced(self, left: str, right: str) -> bool:
        """Whether the side `right` puts values in for the random quantities of the side `left`
        that are not theirs, or changes an operation between them (see the module's text).
        Both are read with this reader, which remembers the answer."""
        return self.reader.remember(
            ("misplaced", left, right), lambda: self._misplaced(left, right)
        )

    def _misplaced(self, left: str, right: str) -> bool:
        reader = self.reader
        try:
            left_tree, left_words = reader.tree(left, extra=reader.names_in(left))
            right_tree, right_words = reader.tree(right, extra=reader.names_in(right))
        except AnswerError:
            return False
        if _has_operator(left_tree) or _has_operator(right_tree):
            return False  # ∂/∂x body is not what it is written as: the values decide
        matcher = _Matcher(reader, left_words, right_words)
        return matcher.match(_pull_out_of_sums(left_tree), _pull_out_of_sums(right_tree)) is False


class _Matcher:
    def __init__(self, reader: StepReader, left: Vocabulary, right: Vocabulary) -> None:
        self.reader, self.left, self.right = reader, left, right

    def random(self, node: ast.expr) -> bool:
        for part in ast.walk(node):
            if isinstance(part, ast.Call) and _name(part.func) in _RANDOM_CALLS:
                return True
            name = _name(part)
            if name and (name.startswith("zzdot_") or self.reader.model.component(name)):
                return True
        return False

    def match(self, left: ast.expr, right: ast.expr, depth: int = 0) -> bool | None:
        """True: `right` is `left` with right values put in; False: a value or an operation is
        wrong; None: the two do not line up, so this says nothing."""
        if depth > _MAX_DEPTH:
            return None
        if ast.dump(left) == ast.dump(right) or (_is_index(left) and _is_index(right)):
            return True
        random_left, random_right = self.random(left), self.random(right)
        if not random_left:
            return None
        if isinstance(left, ast.BinOp) and isinstance(right, ast.BinOp):
            if type(left.op) is type(right.op):
                return self.operands(left, right, depth)
            if random_right:
                return None
            changed = self.changed_operation(left, right, depth)
            if changed is not None or not isinstance(left.op, ast.Mult):
                return changed
        elif random_right:
            if (
                isinstance(left, ast.Call)
                and isinstance(right, ast.Call)
                and _same_call(left, right)
            ):
                pairs = zip(left.args, right.args, strict=True)
                return _all(self.match(a, b, depth + 1) for a, b in pairs)
            return None
        return self.same_value(left, right)

    def operands(self, left: ast.BinOp, right: ast.BinOp, depth: int) -> bool | None:
        orders = [[(left.left, right.left), (left.right, right.right)]]
        if isinstance(left.op, ast.Add | ast.Mult):
            orders.append([(left.left, right.right), (left.right, right.left)])
        results = [
            None  # a random quantity on the right across from none on the left: not lined up
            if any(self.random(b) and not self.random(a) for a, b in order)
            else _all(self.match(a, b, depth + 1) for a, b in order)
            for order in orders
        ]
        if True in results:
            return True
        return False if all(result is False for result in results) else None

    def changed_operation(self, left: ast.BinOp, right: ast.BinOp, depth: int) -> bool | None:
        """A product of random quantities written as a sum of numbers is wrong; a difference
        written as a sum is wrong unless the sum adds a negated term (`-b + a`)."""
        if isinstance(left.op, ast.Mult) and isinstance(right.op, ast.Add | ast.Sub):
            return False
        if isinstance(left.op, ast.Sub) and isinstance(right.op, ast.Add):
            negated = [
                (side, operand)
                for side in (right.left, right.right)
                if (operand := _negated(side)) is not None
            ]
            if not negated:
                return False
            if len(negated) == 1:
                side, operand = negated[0]
                other = right.right if side is right.left else right.left
                return _all(
                    [
                        self.match(left.left, other, depth + 1),
                        self.match(left.right, operand, depth + 1),
                    ]
                )
        return None

    def same_value(self, left: ast.expr, right: ast.expr) -> bool | None:
        try:
            left_value = self.reader.value_of(build(left, self.left))
            right_value = self.reader.value_of(build(right, self.right))
            return bool(self.reader.follows(left_value, right_value))
        except (AnswerError, CannotEvaluate, Exception, RecursionError):
            return None


def _all(results: Any) -> bool | None:
    found = list(results)
    if any(result is False for result in found):
        return False
    return True if all(result is True for result in found) else None


def _negated(node: ast.expr) -> ast.expr | None:
    """`-b`, `-b·c` or `-b/c` without its minus sign; None for a term with no minus sign."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
        first = _negated(node.left)
        if first is not None:
            return ast.BinOp(left=first, op=node.op, right=node.right)
    return None


def _same_call(left: ast.Call, right: ast.Call) -> bool:
    return _name(left.func) == _name(right.func) and len(left.args) == len(right.args)


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _has_operator(node: ast.expr) -> bool:
    """Whether a tree holds the derivative operator ∂/∂x (`notation` marks it)."""
    return any(_name(part).startswith(OPERATOR_PREFIX) for part in ast.walk(node))


def _is_index(node: ast.expr) -> bool:
    """The marker of a sum's index: Σ_a and Σ_i line up whatever their letters."""
    return _name(node).startswith("zzsum_")


def _pull_out_of_sums(node: ast.expr) -> ast.expr:
    """`sum(zzsum_a*(X/c))` -> `sum(zzsum_a*X)/c` (and `c*X` alike) when c does not use the
    index a: a constant factor of a sum, written inside it or outside, is the same factor. A
    plain number stays where it is written (`Σ_a 1 · 0` puts values in for E[q_a] E[k_a])."""

    class Pull(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> ast.AST:
            self.generic_visit(call)
            if _name(call.func) != "sum" or len(call.args) != 1:
                return call
            body = call.args[0]
            if not (isinstance(body, ast.BinOp) and isinstance(body.op, ast.Mult)):
                return call
            marker, inner = body.left, body.right
            if not _is_index(marker):
                return call
            index = _name(marker).removeprefix("zzsum_")
            if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div | ast.Mult):
                for keep, factor in ((inner.left, inner.right), (inner.right, inner.left)):
                    if isinstance(inner.op, ast.Div) and factor is inner.left:
                        continue  # in X/c only the denominator can come out
                    if _is_symbolic(factor) and not _uses(factor, index):
                        summed = ast.Call(
                            func=call.func,
                            args=[ast.BinOp(left=marker, op=ast.Mult(), right=keep)],
                            keywords=[],
                        )
                        return ast.BinOp(left=summed, op=inner.op, right=factor)
            return call

    return Pull().visit(node)  # type: ignore[no-any-return]


def _is_symbolic(node: ast.expr) -> bool:
    return any(isinstance(part, ast.Name) for part in ast.walk(node))


def _uses(node: ast.expr, index: str) -> bool:
    """Whether a name in `node` is the index or has it in its subscript (q_a, δ_ij for i), or
    is a derivative one of whose names does (∂v_t/∂v_j for t)."""
    return any(isinstance(part, ast.Name) and _name_uses(part.id, index) for part in ast.walk(node))


def _name_uses(name: str, index: str) -> bool:
    marker = read_marker(name)
    if marker is not None and marker[0] in {"derivative", "operator"}:
        return any(_name_uses(part, index) for part in marker[1])
    return name == index or index in name.partition("_")[2].split("_")[-1]
