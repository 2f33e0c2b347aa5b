"""Turn a checked syntax tree into a SymPy expression, node by node.

Only trees that `safe_ast.parse_tree` accepted arrive here, so every node is a number, a known
name, an arithmetic operator or a call of a whitelisted function; nothing is evaluated from text.
Matrix symbols are noncommutative SymPy symbols, `transpose` follows (AB)^T = B^T A^T, and
`softmax`, `Var`, `E` and `sum` stay opaque functions.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from engine.checking.reading.safe_ast import MAX_DIGITS, MAX_EXPONENT, Vocabulary, refuse
from engine.errors import AnswerError


def build(tree: ast.expr, vocabulary: Vocabulary, *, star_typed: bool = False) -> Any:
    """Build the SymPy expression (or tuple of them) for a tree that `parse_tree` accepted.

    `star_typed` says that the learner typed `*` (not only juxtaposed factors): next to an `@`,
    a typed `*` between two matrices is NumPy's entry-by-entry product.

    SymPy raises a wide variety of exceptions on odd input (and Python may overflow or recurse
    too deeply); for a learner they all mean the same thing, so they become one AnswerError.
    """
    try:
        builder = SympyBuilder(vocabulary)
        # With `@` for matrix products, `*` is NumPy's entry-by-entry product.
        builder.numpy_products = star_typed and any(
            isinstance(node, ast.MatMult) for node in ast.walk(tree)
        )
        return builder.build(tree)
    except AnswerError:
        raise
    except (Exception, RecursionError, MemoryError):
        raise refuse("SymPy cannot work with this expression") from None


class SympyBuilder:
    """Builds SymPy objects from a syntax tree that `parse_tree` accepted, node by node."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        import sympy  # lazily: the command line must start without loading SymPy

        self.sympy = sympy
        self.vocabulary = vocabulary
        self.numpy_products = False

    def build(self, node: ast.expr) -> Any:
        sympy = self.sympy
        if isinstance(node, ast.Tuple | ast.List):
            return tuple(self.build(item) for item in node.elts)
        if isinstance(node, ast.Constant):
            # Decimals become exact rationals (0.5 -> 1/2), so that d_k**0.5 is sqrt(d_k).
            value = node.value
            return sympy.Integer(value) if isinstance(value, int) else sympy.Rational(repr(value))
        if isinstance(node, ast.Name):
            return self.symbol(node.id)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = self.build(node.left), self.build(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if (
                isinstance(node.op, ast.Mult)
                and self.numpy_products
                and not (left.is_commutative or right.is_commutative)
            ):
                # `softmax(Q @ K.T) * V` next to `@`: entry by entry, as NumPy multiplies.
                return opaque_function("hadamard", matrix_valued=True)(left, right)
            if isinstance(node.op, ast.Mult | ast.MatMult):
                return left * right  # noncommutative symbols keep their order in a product
            if isinstance(node.op, ast.Div):
                return left * right**-1
            return self.power(left, right)
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # by parse_tree
        return self.call(node.func.id, [self.build(argument) for argument in node.args])

    def power(self, base: Any, exponent: Any) -> Any:
        """`base**exponent`, refusing powers SymPy would spend minutes or gigabytes computing.

        The syntax checks bound every exponent they can see, but SymPy simplifies as it builds
        (`1**T` is 1), so an exponent such as `10**12 - 1**T` only becomes a number here.
        """
        if not exponent.is_commutative:
            # A matrix exponent means nothing here, and SymPy can spend seconds on one.
            raise refuse("a matrix cannot be an exponent")
        if exponent.is_Number:
            if abs(exponent) > self.vocabulary.limit(MAX_EXPONENT):
                raise refuse(f"exponent too large: keep exponents below {MAX_EXPONENT}")
            if _digits_of_numbers(base) * abs(exponent) > self.vocabulary.limit(MAX_DIGITS):
                raise refuse("the numbers in this expression grow too large")
        return base**exponent

    def symbol(self, name: str) -> Any:
        sympy, vocabulary = self.sympy, self.vocabulary
        if not vocabulary.knows(name):  # a constant: a question's own symbol `e` wins
            return {"pi": sympy.pi, "inf": sympy.oo, "i": sympy.I}.get(name, sympy.E)
        if name in vocabulary.matrices:
            return sympy.Symbol(name, commutative=False)
        # Positive and integer symbols are plain SymPy symbols on purpose: with `positive=True`
        # SymPy's sign queries factor polynomials (d - d**99 takes seconds to construct). The
        # declared domains are honoured where equality is decided, by the numeric test.
        return sympy.Symbol(name)

    def call(self, name: str, arguments: list[Any]) -> Any:
        sympy = self.sympy
        simple: dict[str, Callable[..., Any]] = {
            "sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log, "ln": sympy.log,
            "abs": sympy.Abs, "max": sympy.Max, "min": sympy.Min,
            "KroneckerDelta": sympy.KroneckerDelta, "transpose": transpose,
            "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "sec": sympy.sec,
            "csc": sympy.csc, "cot": sympy.cot, "asin": sympy.asin, "acos": sympy.acos,
            "atan": sympy.atan, "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh,
            "asinh": sympy.asinh, "acosh": sympy.acosh, "atanh": sympy.atanh,
            "log10": lambda x: sympy.log(x, 10), "log2": lambda x: sympy.log(x, 2),
            "cbrt": sympy.cbrt, "sech": sympy.sech, "csch": sympy.csch, "coth": sympy.coth,
            "acot": sympy.acot, "asec": sympy.asec, "acsc": sympy.acsc, "acoth": sympy.acoth,
            "asech": sympy.asech, "acsch": sympy.acsch, "sign": sympy.sign,
            "factorial": sympy.factorial, "atan2": sympy.atan2,
            "lg": lambda x, base=10: sympy.log(x, base),
            "root": lambda x, degree=2: x ** (1 / sympy.sympify(degree)),
            "re": sympy.re, "im": sympy.im, "conj": sympy.conjugate,
            "sigmoid": lambda x: 1 / (1 + sympy.exp(-x)),
        }  # fmt: skip
        matrix_valued = not all(argument.is_commutative for argument in arguments)
        if name == "exp" and not matrix_valued:
            # SymPy rewrites exp(n*log(x)) as x**n, so the same bounds apply to n.
            coefficient, _ = arguments[0].as_coeff_Mul()
            if arguments[0].has(sympy.log) and abs(coefficient) > MAX_EXPONENT:
                raise refuse(f"exponent too large: keep exponents below {MAX_EXPONENT}")
        if name == "transpose" or (name in simple and not matrix_valued):
            return simple[name](*arguments)
        # softmax, Var, E and sum stay opaque, and so do scalar functions of a matrix (read as
        # elementwise): SymPy's own Abs or Max would expand a matrix into re() and im() parts.
        return opaque_function(_ELEMENTWISE_NAMES.get(name, name), matrix_valued)(*arguments)


_ELEMENTWISE_NAMES = {"ln": "log", "abs": "Abs", "max": "Max", "min": "Min"}


def opaque_function(name: str, matrix_valued: bool) -> Any:
    """The SymPy function `name`, noncommutative when it returns a matrix."""
    import sympy

    if matrix_valued:
        return sympy.Function(name, commutative=False)
    return sympy.Function(name)


def transpose(expr: Any) -> Any:
    """The transpose of a SymPy expression in which noncommutative symbols are matrices.

    Scalars are their own transpose, (AB)^T = B^T A^T and (A^T)^T = A, so `(QK^T)^T` and `KQ^T`
    compare equal; anything else (a softmax, an inverse) keeps an explicit transpose.
    """
    import sympy

    marker = opaque_function("transpose", matrix_valued=True)
    if expr.is_commutative:
        return expr
    if isinstance(expr, sympy.Add):
        return sympy.Add(*[transpose(term) for term in expr.args])
    if isinstance(expr, sympy.Mul):
        scalars, matrices = expr.args_cnc()
        return sympy.Mul(*scalars) * sympy.Mul(*[transpose(m) for m in reversed(matrices)])
    if isinstance(expr, sympy.Pow) and expr.exp.is_integer:
        return transpose(expr.base) ** expr.exp
    if getattr(expr, "func", None) == marker:
        return expr.args[0]
    return marker(expr)


def _digits_of_numbers(expr: Any) -> float:
    """The most digits (numerator and denominator) of any exact number inside `expr`."""
    import sympy

    return max(
        # From bit lengths: printing an integer of over 4300 digits raises ValueError.
        (
            (abs(n.p).bit_length() + n.q.bit_length()) * math.log10(2) + 1
            for n in expr.atoms(sympy.Rational)
        ),
        default=1.0,
    )
