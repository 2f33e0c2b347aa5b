"""Decide equivalence by evaluating both expressions at random points.

Symbolic simplification cannot always decide whether two expressions are equal (and for matrix
expressions with softmax it rarely can), but two different expressions almost never agree at
several random points. Scalars are drawn from each symbol's declared domain; every matrix symbol
becomes a random square matrix and `softmax` the row-wise softmax, so that `softmax(QK^T)V` and
`V softmax(QK^T)` give different numbers. Evaluation walks the SymPy tree with NumPy: nothing is
compiled or executed, and a point where either side is undefined is skipped.
"""

from __future__ import annotations

import cmath
import functools
import zlib
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from engine.checking.equivalence.domain import Domain

POINTS = 8
# Distinct SymPy numbers whose values are remembered (`_number`).
NUMBERS_KEPT = 1024


class Undefined(Exception):
    """The expression has no finite value at this point (or cannot be evaluated at all)."""


def equivalent_at_random_points(
    a: Any,
    b: Any,
    *,
    positive: Collection[str] = (),
    integer: Collection[str] = (),
    tolerance: float = 1e-9,
    points: int = POINTS,
    seed: int = 0,
    domain: Domain | None = None,
) -> bool | None:
    """True if `a` and `b` agree at `points` random points, False if they differ at one.

    Points come from `domain` (by default: symbols named in `integer` from 1..5, those in
    `positive` from (0.5, 5), other scalars from (-3, 3), `delta_ij` a Kronecker delta);
    noncommutative symbols are matrices. None when too few points could be evaluated to decide
    either way, which callers must never read as equal.
    """
    if domain is None:
        domain = Domain(positive=frozenset(positive), integer=frozenset(integer))
    symbols = sorted(a.free_symbols | b.free_symbols, key=str)
    sampler = domain.sampler(symbols)
    rng = np.random.default_rng(seed)
    agreed = 0
    for attempt in range(4 * points):
        values = sampler.sample(rng, attempt)
        try:
            left, right = evaluate(a, values), evaluate(b, values)
        except Undefined:
            continue
        if not close(left, right, tolerance):
            return False
        agreed += 1
        if agreed == points:
            return True
    return None


def close(left: Any, right: Any, tolerance: float) -> bool:
    """Agreement within a relative tolerance; a matrix never equals a scalar."""
    if np.shape(left) != np.shape(right):
        return False
    scale = max(float(np.max(np.abs(left))), float(np.max(np.abs(right))))
    return float(np.max(np.abs(np.subtract(left, right)))) <= tolerance * scale + 1e-12


def evaluate(expr: Any, values: dict[Any, Any]) -> Any:
    """The value of a SymPy expression: a complex scalar or a NumPy matrix."""
    with np.errstate(all="ignore"):
        try:
            value = _evaluate(expr, values)
        except (ArithmeticError, ValueError, TypeError, np.linalg.LinAlgError, RecursionError):
            raise Undefined from None
    return _check(value)


def _evaluate(expr: Any, values: dict[Any, Any]) -> Any:
    import sympy

    if expr.is_Symbol:
        return values[expr]
    if expr.is_Number or isinstance(expr, sympy.NumberSymbol) or expr is sympy.I:
        return _number(expr, type(expr).__name__)
    if getattr(expr.func, "__name__", "") in {"sum", "prod"} and len(expr.args) == 2:
        return _written_out(expr, values)
    args = [_evaluate(argument, values) for argument in expr.args]
    if isinstance(expr, sympy.Add):
        return _check(sum(args[1:], args[0]))
    if isinstance(expr, sympy.Mul):
        return _product(expr, args)
    if isinstance(expr, sympy.Pow):
        return _power(*args)
    name = getattr(expr.func, "__name__", "")
    if name in _ELEMENTWISE:
        return _check(_ELEMENTWISE[name](*args))
    if name in {"Max", "Min"}:
        if any(np.ndim(x) or abs(x.imag) > 1e-12 for x in args):
            raise Undefined  # the order of complex numbers or matrices is not defined
        return complex((max if name == "Max" else min)(x.real for x in args))
    if isinstance(expr, sympy.KroneckerDelta):
        return complex(1.0 if _close_scalars(args[0], args[1]) else 0.0)
    if name == "softmax":
        return _softmax(args[0])
    if name == "transpose":
        return np.transpose(args[0])
    if isinstance(expr, sympy.core.function.AppliedUndef):
        return _stand_in(name, args)
    raise Undefined  # nothing else should reach here; refuse rather than guess


@functools.lru_cache(maxsize=NUMBERS_KEPT)
def _number(number: Any, kind: str) -> complex:
    """The value of a SymPy number, worked out once (`evalf` is most of what evaluating a
    small expression costs, and the same numbers come back at every point). Keyed by the name
    of the number's class too (`kind`), so that no two numbers SymPy calls equal share one."""
    import sympy

    if number.has(sympy.zoo, sympy.oo, sympy.nan, -sympy.oo):
        raise Undefined
    return complex(number)


# How many terms a sum or product over a family (`sum(exp(s_j), j)`, see `big_operators`) is
# written out to: between these, chosen by the point, so that no fixed count (Σ_j 1 = 3) can pass.
SUM_TERMS = (2, 5)


def _written_out(expr: Any, values: dict[Any, Any]) -> Any:
    """`sum(term, j)` (or `prod`) written out over a few members of every family the term
    indexes by j (how many depends on the point: the value drawn for j picks it).

    The member j = 1 is the point's own value of `s_j`; the others are that value scaled by
    fixed factors (the same for every expression at the point, so equal sums agree).
    """
    term, index = expr.args
    if not index.is_Symbol:
        raise Undefined
    is_product = expr.func.__name__ == "prod"
    letter = str(index)
    members = [
        symbol
        for symbol in term.free_symbols
        if letter in str(symbol).partition("_")[2].strip("{}")
    ]
    total: Any = complex(1.0 if is_product else 0.0)
    low, high = SUM_TERMS
    terms = low + int(abs(complex(values.get(index, 0)).real) * 997) % (high - low + 1)
    for position in range(1, terms + 1):
        point = dict(values)
        point[index] = complex(position)
        for symbol in members:
            rng = np.random.default_rng(zlib.crc32(f"{symbol}#{position}".encode()))
            factor = 1.0 if position == 1 else float(rng.uniform(0.3, 1.7))
            point[symbol] = values[symbol] * factor
        value = _evaluate(term, point)
        total = _product_of(total, value) if is_product else total + value
    return _check(total if np.ndim(total) else complex(total))


def _product_of(left: Any, right: Any) -> Any:
    """A product of members: matrices multiply in order, scalars as numbers."""
    if np.ndim(left) and np.ndim(right):
        return np.matmul(left, right)
    return left * right


def _stand_in(name: str, args: list[Any]) -> Any:
    """A fixed smooth function standing in for an opaque one such as Var or E.

    SymPy treats `Var(x)` as an arbitrary function of x, so two answers are equal only if they
    agree for every such function; a smooth random one (the same for every point, so that
    `Var(d_k)` on both sides agrees) tests exactly that, and rounding cannot upset it.
    """
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    total: Any = complex(0.0)
    for argument in args:
        amplitude, frequency, phase = rng.uniform(0.5, 1.5, size=3)
        total = total + amplitude * np.cos(frequency * np.asarray(argument) + phase)
    return _check(total if np.ndim(total) else complex(total))


_ELEMENTWISE: dict[str, Callable[..., Any]] = {
    "exp": np.exp,
    "log": np.emath.log,
    "Abs": np.abs,
    "sqrt": np.emath.sqrt,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sec": lambda x: 1 / np.cos(x),
    "csc": lambda x: 1 / np.sin(x), "cot": lambda x: 1 / np.tan(x),
    "asin": lambda x: np.arcsin(x + 0j), "acos": lambda x: np.arccos(x + 0j),
    "atan": lambda x: np.arctan(x + 0j), "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": lambda x: np.arcsinh(x + 0j), "acosh": lambda x: np.arccosh(x + 0j),
    "atanh": lambda x: np.arctanh(x + 0j), "sech": lambda x: 1 / np.cosh(x),
    "csch": lambda x: 1 / np.sinh(x), "coth": lambda x: 1 / np.tanh(x),
    "acot": lambda x: np.arctan(1 / (x + 0j)), "asec": lambda x: np.arccos(1 / (x + 0j)),
    "acsc": lambda x: np.arcsin(1 / (x + 0j)), "acoth": lambda x: np.arctanh(1 / (x + 0j)),
    "asech": lambda x: np.arccosh(1 / (x + 0j)), "acsch": lambda x: np.arcsinh(1 / (x + 0j)),
    "sign": lambda x: _real(x, np.sign), "factorial": lambda x: _real(x, _gamma_plus_one),
    "atan2": lambda y, x: _real(y, lambda real_y: np.arctan2(real_y, _real(x, float).real)),
    "re": lambda x: np.real(x) + 0j, "im": lambda x: np.imag(x) + 0j, "conjugate": np.conj,
}  # fmt: skip


def _real(x: Any, function: Callable[[float], float]) -> Any:
    """A function defined on real numbers only (the sign, the factorial): complex arguments and
    matrices have no value here."""
    if np.ndim(x) or abs(x.imag) > 1e-12:
        raise Undefined
    return complex(function(x.real))


def _gamma_plus_one(x: float) -> float:
    """x! as Γ(x + 1), so that n!/(n-1)! = n holds at any real point; poles have no value."""
    import math

    return math.gamma(x + 1)


def _product(expr: Any, args: list[Any]) -> Any:
    # SymPy keeps scalar factors first and matrix factors in their written order; evaluated
    # factors come out in the same order as `expr.args`.
    result: Any = complex(1.0)
    for factor, value in zip(expr.args, args, strict=True):
        if factor.is_commutative or np.ndim(value) == 0 or np.ndim(result) == 0:
            result = result * value
        else:
            result = result @ value
    return _check(result)


def _power(base: Any, exponent: Any) -> Any:
    if np.ndim(exponent):
        raise Undefined  # a matrix exponent has no meaning here
    if np.ndim(base) == 0:
        return _check(base**exponent)
    if abs(exponent.imag) > 0 or exponent.real != round(exponent.real):
        raise Undefined  # only whole powers of a matrix are defined
    return _check(np.linalg.matrix_power(base, round(exponent.real)))


def _softmax(scores: Any) -> Any:
    if np.ndim(scores) == 0:
        return complex(1.0)  # the softmax of a single score
    shifted = scores - np.max(np.real(scores), axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return _check(weights / np.sum(weights, axis=-1, keepdims=True))


def _check(value: Any) -> Any:
    if isinstance(value, complex):  # a scalar (NumPy's complex128 too): no array to build
        if not cmath.isfinite(value):
            raise Undefined
        return value
    if not np.all(np.isfinite(value)):
        raise Undefined
    return value


def _close_scalars(a: Any, b: Any) -> bool:
    return bool(np.ndim(a) == 0 and np.ndim(b) == 0 and abs(a - b) < 1e-12)
