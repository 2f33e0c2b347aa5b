"""Shape algebra for the rapid-fire drill: work out the shape of `softmax(Q @ K.T / sqrt(a)) @ V`.

A rapid template states the shapes of its tensors in dimension variables (`Q: [n, a]`), asks
the shape of an expression, and states the answer. This module derives that shape, so lint can
tell an author whose stated answer does not follow. A dimension is a product of variables
(`h*e`); expressions are read with Python's parser and only these forms are allowed:

- `A @ B` (batch dimensions, if any, must agree or be missing on one side), `A.T` (2-D only),
  `A.mT` (swaps the last two dimensions), `A + B`, `A * B`, `A / B`, `A - B` (same shapes, or one
  side a scalar: a number, a dimension variable, `sqrt(...)`);
- `softmax(A)`, `exp(A)` (same shape), `grad(A)` (dL/dA has A's shape),
  `split_heads(A, h)` (`(..., T, h*e)` to `(..., h, T, e)`), `merge_heads(A)` (the inverse).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping

MAX_EXPRESSION = 300


class ShapeAlgebraError(Exception):
    """An expression or dimension that cannot be read, or shapes that do not fit together."""


class Dim(tuple[tuple[str, int], ...]):
    """A dimension: the product of variables to powers, kept sorted (`h*e` is `e*h`)."""

    @classmethod
    def of(cls, powers: Mapping[str, int]) -> Dim:
        return cls(sorted((name, p) for name, p in powers.items() if p))

    @classmethod
    def parse(cls, text: str) -> Dim:
        """`n`, or a product `h*e`."""
        factors = [f.strip() for f in text.split("*")]
        if not all(f.isidentifier() for f in factors):
            raise ShapeAlgebraError(f"{text!r} is not a dimension such as n or h*e")
        return cls.of(Counter(factors))

    def times(self, other: Dim) -> Dim:
        powers = Counter(dict(self))
        powers.update(dict(other))
        return Dim.of(powers)

    def over(self, other: Dim) -> Dim | None:
        """This divided by `other`, or None when it is not a whole product of variables."""
        powers = Counter(dict(self))
        powers.subtract(dict(other))
        return None if any(p < 0 for p in powers.values()) else Dim.of(powers)

    @property
    def names(self) -> set[str]:
        return {name for name, _ in self}

    def text(self, values: Mapping[str, str | int] | None = None, times: str = "*") -> str:
        """As written in an answer; with `values`, each variable replaced (numbers multiplied)."""
        factors = [values[n] if values else n for n, p in self for _ in range(p)]
        if factors and all(isinstance(f, int) for f in factors):
            product = 1
            for f in factors:
                product *= int(f)
            return str(product)
        return times.join(str(f) for f in factors) or "1"


Shape = tuple[Dim, ...]
SCALAR = None  # the shape of a number, a dimension variable or sqrt(...)


def shape_text(shape: Shape, values: Mapping[str, str | int] | None = None) -> str:
    return "(" + ", ".join(dim.text(values) for dim in shape) + ")"


def parse_shape_spec(dims: tuple[str, ...] | list[str]) -> Shape:
    return tuple(Dim.parse(d) for d in dims)


def derive_shape(expression: str, tensors: Mapping[str, Shape], variables: set[str]) -> Shape:
    """The shape of `expression`; ShapeAlgebraError says what does not fit."""
    if len(expression) > MAX_EXPRESSION:
        raise ShapeAlgebraError("the expression is too long")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ShapeAlgebraError(f"cannot read {expression!r}") from None
    shape = _Deriver(tensors, variables).visit(tree.body)
    if shape is SCALAR:
        raise ShapeAlgebraError(f"{expression!r} is a scalar, not an array")
    return shape


class _Deriver:
    def __init__(self, tensors: Mapping[str, Shape], variables: set[str]) -> None:
        self.tensors = tensors
        self.variables = variables

    def visit(self, node: ast.expr) -> Shape | None:
        if isinstance(node, ast.Name):
            if node.id in self.tensors:
                return self.tensors[node.id]
            if node.id in self.variables:
                return SCALAR
            raise ShapeAlgebraError(f"{node.id!r} is neither a tensor nor a dimension")
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return SCALAR
        if isinstance(node, ast.Attribute):
            return self._transpose(self._array(node.value), node.attr)
        if isinstance(node, ast.BinOp):
            left, right = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.MatMult):
                return matmul(_not_scalar(left, "@"), _not_scalar(right, "@"))
            if isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
                return _elementwise(left, right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self._call(node.func.id, node.args)
        raise ShapeAlgebraError(f"{ast.unparse(node)!r} is not part of the shape language")

    def _array(self, node: ast.expr) -> Shape:
        return _not_scalar(self.visit(node), ast.unparse(node))

    def _transpose(self, shape: Shape, attr: str) -> Shape:
        if attr == "mT" and len(shape) >= 2:
            return (*shape[:-2], shape[-1], shape[-2])
        if attr == "T" and len(shape) == 2:
            return (shape[1], shape[0])
        raise ShapeAlgebraError(f".{attr} of a {len(shape)}-D array (use .T in 2-D, .mT above)")

    def _call(self, name: str, args: list[ast.expr]) -> Shape | None:
        if name in {"softmax", "exp"} and len(args) == 1:
            return self._array(args[0])
        if name == "sqrt" and len(args) == 1:
            if self.visit(args[0]) is not SCALAR:
                raise ShapeAlgebraError("sqrt(...) takes a dimension or a number")
            return SCALAR
        if name == "grad" and len(args) == 1 and isinstance(args[0], ast.Name):
            return self._array(args[0])
        if name == "split_heads" and len(args) == 2 and isinstance(args[1], ast.Name):
            return split_heads(self._array(args[0]), Dim.parse(args[1].id))
        if name == "merge_heads" and len(args) == 1:
            return merge_heads(self._array(args[0]))
        raise ShapeAlgebraError(f"{name}(...) with these arguments is not in the shape language")


def _not_scalar(shape: Shape | None, what: str) -> Shape:
    if shape is SCALAR:
        raise ShapeAlgebraError(f"{what} needs arrays, not a scalar")
    return shape


def _elementwise(left: Shape | None, right: Shape | None) -> Shape | None:
    if left is SCALAR or right is SCALAR:
        return right if left is SCALAR else left
    if left != right:
        raise ShapeAlgebraError(
            f"elementwise on {shape_text(left)} and {shape_text(right)}: the shapes differ"
        )
    return left


def matmul(left: Shape, right: Shape) -> Shape:
    if len(left) < 2 or len(right) < 2:
        raise ShapeAlgebraError("@ needs arrays of two or more dimensions here")
    if left[-1] != right[-2]:
        raise ShapeAlgebraError(
            f"{shape_text(left)} @ {shape_text(right)}: inner dimensions "
            f"{left[-1].text()} and {right[-2].text()} differ"
        )
    batch_left, batch_right = left[:-2], right[:-2]
    shorter, longer = sorted((batch_left, batch_right), key=len)
    if shorter and longer[len(longer) - len(shorter) :] != shorter:
        raise ShapeAlgebraError(
            f"{shape_text(left)} @ {shape_text(right)}: the batch dimensions differ"
        )
    return (*longer, left[-2], right[-1])


def split_heads(shape: Shape, heads: Dim) -> Shape:
    if len(shape) < 2:
        raise ShapeAlgebraError("split_heads needs (..., T, h*e)")
    per_head = shape[-1].over(heads)
    if per_head is None:
        raise ShapeAlgebraError(
            f"split_heads: the last dimension {shape[-1].text()} is not a multiple of "
            f"{heads.text()}"
        )
    return (*shape[:-2], heads, shape[-2], per_head)


def merge_heads(shape: Shape) -> Shape:
    if len(shape) < 3:
        raise ShapeAlgebraError("merge_heads needs (..., h, T, e)")
    return (*shape[:-3], shape[-2], shape[-3].times(shape[-1]))
