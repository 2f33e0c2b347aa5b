"""The security boundary: read typed arithmetic without ever executing it.

Typed text never reaches eval, exec, `sympify` of a string or SymPy's `parse_expr`. Instead the
text is measured first (length, bracket depth) so that hostile input is refused before any parser
sees it, then Python's own parser builds a syntax tree, which is checked against a small whitelist
(numbers, known names, + - * / ** @, calls of known functions), and only then is the SymPy
expression built node by node (`to_sympy.build`). Powers are bounded so that nothing like
`9**9**9**9` is ever computed. Every refusal is an `AnswerError` whose message tells the learner
what to change.
"""

from __future__ import annotations

import ast
import math
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.checking.reading.brackets import deepest
from engine.errors import AnswerError

MAX_LENGTH = 400
# Invisible characters that copying from a web page or a PDF leaves behind (zero-width spaces and
# joiners, word joiner, byte-order mark, soft hyphen): harmless, so `typography` drops them.
IGNORABLE_CHARS = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
# Control and format characters (escape sequences, NUL, bidirectional overrides) and lone
# surrogates are refused; ordinary whitespace such as a tab or newline is not.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
MAX_DEPTH = 30
MAX_NODES = 200
MAX_EXPONENT = 100
MAX_POWER_NESTING = 2
# Constant subexpressions must stay well inside float range, so exact SymPy integers stay small.
MAX_MAGNITUDE = sys.float_info.max
# Bound on the polynomial degree an answer can reach, so that no rewrite ever expands x**10000.
MAX_DEGREE = 400
# Bound on the digits of any exact number SymPy may compute on the way (see `_digits`).
MAX_DIGITS = 400
AUTHOR_SCALE = 10

# Functions a learner may call, with how many arguments each takes (low, high).
FUNCTION_ARITY: dict[str, tuple[int, int]] = {
    "sqrt": (1, 1), "exp": (1, 1), "log": (1, 2), "ln": (1, 1), "abs": (1, 1),
    "softmax": (1, 1), "transpose": (1, 1), "max": (1, 8), "min": (1, 8), "sum": (1, 2),
    "prod": (2, 2),
    "Var": (1, 1), "E": (1, 1), "KroneckerDelta": (2, 2),
    "sin": (1, 1), "cos": (1, 1), "tan": (1, 1), "sec": (1, 1), "csc": (1, 1), "cot": (1, 1),
    "asin": (1, 1), "acos": (1, 1), "atan": (1, 1), "sinh": (1, 1), "cosh": (1, 1),
    "tanh": (1, 1), "asinh": (1, 1), "acosh": (1, 1), "atanh": (1, 1), "log10": (1, 1),
    "log2": (1, 1), "cbrt": (1, 1), "sech": (1, 1), "csch": (1, 1), "coth": (1, 1),
    "acot": (1, 1), "asec": (1, 1), "acsc": (1, 1), "acoth": (1, 1), "asech": (1, 1),
    "acsch": (1, 1), "sign": (1, 1), "factorial": (1, 1), "atan2": (2, 2), "lg": (1, 2),
    "root": (1, 2), "re": (1, 1), "im": (1, 1), "conj": (1, 1), "sigmoid": (1, 1),
}  # fmt: skip
FUNCTION_NAMES = frozenset(FUNCTION_ARITY)
# The letters that index a family of symbols (s_i, s_j): a sum over a family runs over one.
INDEX_LETTERS = frozenset("ijklmn")
# `i` is the imaginary unit unless a question declares a symbol `i` (an index, a position).
CONSTANT_NAMES = frozenset({"pi", "e", "inf", "i"})
# Other spellings of the functions above: arcsin(x) is asin(x), ln(x) stays ln (it is log).
FUNCTION_ALIASES = {
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "arsinh": "asinh", "arcosh": "acosh",
    "artanh": "atanh", "Exp": "exp", "Log": "log", "Ln": "ln",
    "cosec": "csc", "cosech": "csch", "arccot": "acot", "arcsec": "asec", "arccsc": "acsc",
    "arccosec": "acsc", "arccoth": "acoth", "arcoth": "acoth", "arcsech": "asech",
    "arsech": "asech", "arccsch": "acsch", "arcsch": "acsch", "sgn": "sign", "signum": "sign",
    "fact": "factorial", "arctan2": "atan2", "conjugate": "conj",
}  # fmt: skip

# A name that reads as a mathematical symbol: one letter (Latin, or a Greek letter's name, but not
# the constant `pi`), optionally with a short subscript: `T`, `p_j`, `d_q`, `sigma`.
_SYMBOL_LIKE = re.compile(
    r"(?:[A-Za-z]|alpha|beta|gamma|delta|epsilon|zeta|eta|theta|kappa|lamda|mu|nu|xi|rho|sigma"
    r"|tau|phi|chi|psi|omega|Delta|Gamma|Theta|Phi|Omega)(?:_[A-Za-z0-9]{1,3})?"
)


def is_symbol_like(name: str) -> bool:
    """Whether `name` reads as a mathematical symbol (`T`, `p_j`, `sigma`) rather than a word,
    a function or a constant."""
    return (
        bool(_SYMBOL_LIKE.fullmatch(name))
        and name not in FUNCTION_NAMES
        and name not in CONSTANT_NAMES
    )


_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)
_REFUSED_NODES: dict[type[ast.AST], str] = {
    ast.Attribute: "attributes such as `.{attr}` are not allowed",
    ast.Subscript: "indexing with `[...]` is not allowed",
    ast.Lambda: "`lambda` is not allowed: type an expression",
    ast.ListComp: "comprehensions (`for ... in ...`) are not allowed",
    ast.SetComp: "comprehensions (`for ... in ...`) are not allowed",
    ast.DictComp: "comprehensions (`for ... in ...`) are not allowed",
    ast.GeneratorExp: "comprehensions (`for ... in ...`) are not allowed",
    ast.Compare: "comparisons such as `<` or `==` are not allowed: type only the expression",
    ast.BoolOp: "`and` and `or` are not allowed",
    ast.IfExp: "`if ... else` is not allowed",
    ast.Starred: "`*` before an argument is not allowed",
    ast.NamedExpr: "`:=` is not allowed",
    ast.JoinedStr: "text in quotes is not allowed: type the expression without quotes",
    ast.Dict: "`{...}` is not allowed",
    ast.Set: "`{...}` is not allowed",
}


@dataclass(frozen=True)
class Vocabulary:
    """The names one question lets a learner use, with what SymPy should assume about them."""

    symbols: frozenset[str] = frozenset()
    positive: frozenset[str] = frozenset()
    integer: frozenset[str] = frozenset()
    matrices: frozenset[str] = frozenset()  # noncommutative: Q K^T is not K^T Q
    # Value ranges (low, high) of scalar symbols, e.g. a probability in (0, 1); see `domain`.
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict, hash=False)
    # Indexed families (`s` for s_j): any member, s_i or s_k, is a name of the question too.
    families: frozenset[str] = frozenset()
    # A bank author's answer, verified by lint: the exponent, digit and degree limits that keep
    # a learner's input cheap are AUTHOR_SCALE times looser (the worker still bounds the time).
    author: bool = False

    def knows(self, name: str) -> bool:
        """Whether `name` is a symbol of the question, a member of one of its families, or an
        index letter of a question that has families (the j of Σ_j)."""
        if name in self.symbols or (self.families and name in INDEX_LETTERS):
            return True
        base, _, index = name.rpartition("_")
        return bool(base) and base in self.families and index in INDEX_LETTERS

    def limit(self, learner_limit: float) -> float:
        return learner_limit * (AUTHOR_SCALE if self.author else 1)


def refuse(reason: str) -> AnswerError:
    return AnswerError(f"could not read this: {reason}")


_NUMERAL_POWER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"(?:\s*(?:\^|\*\*)\s*\(?\s*([+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?![\w.]))?"
)


def numeral_beyond_range(text: str) -> str | None:
    """The first number in `text` (`1e400`, 400 digits, `10^400`) that this reader refuses as
    too large for a float, or None. Needs no parsing, so a bank or drill file can be refused
    for it when it is opened, not after the learner's first answer."""
    for match in _NUMERAL_POWER.finditer(text):
        numbers = [float(n) for n in match.groups() if n is not None]
        if not all(map(math.isfinite, numbers)):
            return match.group(0)
        try:
            value = math.pow(*numbers) if len(numbers) == 2 else numbers[0]
        except OverflowError:
            return match.group(0)
        except ValueError:  # 0 to a negative power: undefined, not large
            continue
        if not math.isfinite(value):
            return match.group(0)
    return None


def within_float_range(text: str) -> str:
    """`text`, or ValueError when it holds a number beyond float range (a validator for the
    author's expressions in bank and drill files)."""
    if (number := numeral_beyond_range(text)) is not None:
        number = number if len(number) <= 24 else number[:20] + "…"
        raise ValueError(
            f"the number `{number}` is beyond the floating-point range, so no answer could "
            "ever be checked against it; write a smaller number"
        )
    return text


def check_size(text: str, *, max_length: int = MAX_LENGTH, max_depth: int = MAX_DEPTH) -> None:
    """Refuse text before any parser sees it: too long, too deeply bracketed, or holding
    control characters (which could also act on the terminal if a message quoted them)."""
    if len(text) > max_length:
        raise refuse(f"the answer is {len(text)} characters long; keep it under {max_length}")
    if refused := _first_refused(text):
        at, char = refused
        what = (
            "a broken character (a lone surrogate)"
            if unicodedata.category(char) == "Cs"
            else "an invisible control character"
        )
        raise refuse(
            f"character {at} of the answer is {what} U+{ord(char):04X}; "
            "delete it and type plain text"
        )
    if deepest(text) > max_depth:
        raise refuse(f"brackets are nested too deeply; keep them under {max_depth} deep")


def _is_refused(char: str) -> bool:
    return (
        unicodedata.category(char) in _REFUSED_CATEGORIES
        and char not in IGNORABLE_CHARS
        and not char.isspace()
    )


# Plain ASCII text, most of what is typed, is searched for its refused characters in one pass.
_REFUSED_ASCII = re.compile(
    "[" + re.escape("".join(filter(_is_refused, map(chr, range(128))))) + "]"
)


def _first_refused(text: str) -> tuple[int, str] | None:
    """The first refused character of `text` and its position (from 1), or None."""
    if text.isascii():
        found = _REFUSED_ASCII.search(text)
        return (found.start() + 1, found.group()) if found else None
    return next(((at, c) for at, c in enumerate(text, start=1) if _is_refused(c)), None)


def parse_tree(text: str, vocabulary: Vocabulary, *, allow_tuple: bool = False) -> ast.expr:
    """Parse already-normalised text and check every node against the whitelist."""
    # Normalising may add brackets (`√x` -> `sqrt(x)`), so the limits here are looser.
    check_size(text, max_length=3 * MAX_LENGTH, max_depth=3 * MAX_DEPTH)
    if not text.strip():
        raise AnswerError("could not read this: the answer is empty")
    if "#" in text:  # Python would silently drop everything after it as a comment
        raise refuse("`#` is not maths: type only the expression, without comments")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise refuse(_syntax_hint(text, error)) from None
    except (ValueError, RecursionError, MemoryError):  # null bytes, parser limits
        raise refuse("the text is not an expression") from None
    nodes = sum(1 for node in ast.walk(tree) if isinstance(node, ast.expr))
    if nodes > MAX_NODES:
        raise refuse(f"the expression is too long ({nodes} parts); keep it under {MAX_NODES}")
    # Report a reach for Python internals by name before anything about the shape around it.
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id.startswith("_") or "__" in node.id):
            raise refuse(f"`{node.id}` is not a known name")
    _Checker(vocabulary, allow_tuple).check(tree.body, top=True)
    return tree.body


def _syntax_hint(text: str, error: SyntaxError) -> str:
    where = (error.offset or 1) - 1
    near = text[max(0, where - 8) : where + 8].strip()
    return (
        f"this is not a complete expression (near `{near}`)"
        if near
        else "this is not a complete expression"
    )


class _Checker:
    def __init__(self, vocabulary: Vocabulary, allow_tuple: bool) -> None:
        self.vocabulary = vocabulary
        self.allow_tuple = allow_tuple

    def check(self, node: ast.AST, *, top: bool = False) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
            self.check(node.left)
            self.check(node.right)
            if isinstance(node.op, ast.Pow):
                self._check_power(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            self.check(node.operand)
        elif isinstance(node, ast.Constant):
            self._check_constant(node.value)
        elif isinstance(node, ast.Name):
            self._check_name(node.id)
        elif isinstance(node, ast.Call):
            self._check_call(node)
        elif isinstance(node, ast.Tuple | ast.List) and top and self.allow_tuple:
            for item in node.elts:
                self.check(item)
        elif isinstance(node, ast.Tuple | ast.List):
            raise refuse("a list of values is not an answer here: type one expression")
        else:
            message = _REFUSED_NODES.get(type(node), "this kind of expression is not allowed")
            raise refuse(message.format(attr=getattr(node, "attr", "")))
        if top:
            if _digits(node) > self.vocabulary.limit(MAX_DIGITS):
                raise refuse("the numbers in this expression grow too large")
            degree = _degree(node)
            if degree > self.vocabulary.limit(MAX_DEGREE):
                raise refuse(
                    f"the powers multiply up to degree {degree:g}; keep it under {MAX_DEGREE}"
                )
            _constant_value(node)  # refuses constants beyond float range

    def _check_constant(self, value: object) -> None:
        if isinstance(value, str | bytes):
            raise refuse("text in quotes is not allowed: type the expression without quotes")
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise refuse(f"`{value}` is not a known name")
        if isinstance(value, complex):
            raise refuse("complex numbers such as `1j` are not supported")
        if isinstance(value, int) and abs(value) > 10**12:
            raise refuse("numbers this large are not supported; keep them below 10**12")
        if isinstance(value, float) and not math.isfinite(value):
            raise refuse("this number is too large")

    def _check_name(self, name: str) -> None:
        if name.startswith("_") or "__" in name:
            raise refuse(f"`{name}` is not a known name")
        if self.vocabulary.knows(name) or name in CONSTANT_NAMES:
            return
        if name in FUNCTION_NAMES:
            raise refuse(f"`{name}` is a function: write it with brackets, as {name}(...)")
        known = sorted(self.vocabulary.symbols)
        hint = f" (this question uses {', '.join(known)})" if known else ": type a number"
        raise refuse(f"`{name}` is not a known name{hint}")

    def _check_call(self, node: ast.Call) -> None:
        if not isinstance(node.func, ast.Name):
            self.check(node.func)  # refuses attributes, subscripts and the like by name
            raise refuse("only known functions can be called")
        name = node.func.id
        if name not in FUNCTION_NAMES and "_" not in name and (near := _misspelt(name)):
            node.func.id = name = near  # `sofmax(...)`, `sqtr(...)`: a slip of the keys
        if name not in FUNCTION_NAMES:
            if "_" in name:  # `p_k(...)` is an unknown symbol times a bracket, not a call
                self._check_name(name)
            raise refuse(f"`{name}` is not a known function")
        if node.keywords:
            raise refuse(
                f"`{name}` takes no keyword arguments such as `{node.keywords[0].arg}=`; "
                "type only its argument"
            )
        low, high = FUNCTION_ARITY[name]
        if not low <= len(node.args) <= high:
            count = f"{low}" if low == high else f"{low} to {high}"
            raise refuse(f"`{name}` takes {count} argument{'s' if high > 1 else ''}")
        for argument in node.args:
            self.check(argument)

    def _check_power(self, node: ast.BinOp) -> None:
        if _power_nesting(node) > MAX_POWER_NESTING:
            raise refuse("powers of powers of powers are not supported")
        exponent = _constant_value(node.right)
        if exponent is not None and abs(exponent) > self.vocabulary.limit(MAX_EXPONENT):
            raise refuse(f"exponent too large: keep exponents below {MAX_EXPONENT}")


# A name this short is too close to too much (`sqr` may mean a square) to be read as a slip.
_MIN_SLIP_LENGTH = 4


def _misspelt(name: str) -> str | None:
    """The known function `name` is one slip away from (a letter left out, added, changed, or
    two neighbours swapped), when there is exactly one and both are long enough to tell."""
    if len(name) < _MIN_SLIP_LENGTH:
        return None
    near = {known for known in FUNCTION_NAMES if one_slip(name, known)}
    found = near.pop() if len(near) == 1 else ""
    return found if len(found) >= _MIN_SLIP_LENGTH else None


def one_slip(a: str, b: str) -> bool:
    """Whether `a` is `b` with one letter left out, added or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _power_nesting(node: ast.AST) -> int:
    if isinstance(node, ast.UnaryOp):
        return _power_nesting(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return 1 + max(_power_nesting(node.left), _power_nesting(node.right))
    return 0


def _constant_value(node: ast.AST) -> float | None:
    """The size of a constant subexpression as a float, or None if it has names in it.

    Refuses values beyond float range: that keeps every exact integer SymPy builds small.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name):
        return _CONSTANTS.get(node.id)
    if isinstance(node, ast.UnaryOp):
        inner = _constant_value(node.operand)
        return None if inner is None else -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
        function: Callable[..., Any] | None = _FLOAT_OPS[type(node.op)]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        # Calls count too: sqrt(10)**12 is an exponent of a million, however it is spelled.
        operands, function = list(node.args), _FLOAT_FUNCTIONS.get(node.func.id)
    else:
        return None
    values = [_constant_value(operand) for operand in operands]
    if function is None or any(value is None for value in values):
        return None
    try:
        value = function(*values)
    except OverflowError:
        raise refuse("this number is too large") from None
    except (ZeroDivisionError, ValueError, TypeError):
        return None  # undefined, not large; the checker reports it as a wrong value
    magnitude = abs(value)  # a negative base to a fractional power gives a complex number
    if not math.isfinite(magnitude) or magnitude > MAX_MAGNITUDE:
        raise refuse("this number is too large")
    return magnitude if isinstance(value, complex) else value


_CONSTANTS = {"pi": math.pi, "e": math.e}
# Magnitudes are what matter for the bounds, so roots and logarithms of negatives use |x|.
_FLOAT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": lambda x: math.sqrt(abs(x)),
    "exp": math.exp,
    "log": lambda x, base=math.e: math.log(abs(x), abs(base)),
    "ln": lambda x: math.log(abs(x)),
    "abs": abs,
    "max": lambda *values: max(values),
    "min": lambda *values: min(values),
    "transpose": lambda x: x,
    "KroneckerDelta": lambda a, b: float(a == b),
    "sinh": lambda x: math.sinh(abs(x)),
    "cosh": lambda x: math.cosh(abs(x)),
    "log10": lambda x: math.log10(abs(x)),
    "lg": lambda x, base=10: math.log(abs(x), abs(base)),
    "root": lambda x, degree=2: abs(x) ** (1 / degree),
    "log2": lambda x: math.log2(abs(x)),
    "cbrt": lambda x: abs(x) ** (1 / 3),
    "sigmoid": lambda x: 1 / (1 + math.exp(min(-x, 700))),
    # Γ(|x| + 1) overflows past 170!, so a factorial of a large constant is refused as too large
    # before SymPy would compute its digits.
    "factorial": lambda x: math.gamma(abs(x) + 1),
}
_FLOAT_OPS: dict[type[ast.operator], Callable[[float, float], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.MatMult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}


def _degree(node: ast.AST) -> float:
    """An upper bound on the polynomial degree of an expression: x**100**... stays bounded."""
    if isinstance(node, ast.Name):
        return 1.0
    if isinstance(node, ast.UnaryOp):
        return _degree(node.operand)
    if isinstance(node, ast.Call):
        return max((_degree(argument) for argument in node.args), default=0.0)
    if isinstance(node, ast.Tuple | ast.List):
        return max((_degree(item) for item in node.elts), default=0.0)
    if not isinstance(node, ast.BinOp):
        return 0.0
    left, right = _degree(node.left), _degree(node.right)
    if isinstance(node.op, ast.Pow):
        exponent = _constant_value(node.right)
        return left * abs(exponent) if exponent is not None else left + right
    if isinstance(node.op, ast.Add | ast.Sub):
        return max(left, right)
    return left + right


def _digits(node: ast.AST) -> float:
    """An upper bound on the digits of the exact numbers SymPy may compute for an expression.

    `(9910**12 x)**99` has no constant value, yet SymPy works out a 4750-digit coefficient.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return math.log10(abs(node.value) + 1) + 1
    if isinstance(node, ast.UnaryOp):
        return _digits(node.operand)
    if isinstance(node, ast.Call):
        return max((_digits(argument) for argument in node.args), default=0.0)
    if isinstance(node, ast.Tuple | ast.List):
        return max((_digits(item) for item in node.elts), default=0.0)
    if not isinstance(node, ast.BinOp):
        return 0.0
    left, right = _digits(node.left), _digits(node.right)
    if isinstance(node.op, ast.Pow):
        exponent = _constant_value(node.right)
        return left * abs(exponent) if exponent is not None else max(left, right)
    if isinstance(node.op, ast.Add | ast.Sub):
        return max(left, right) + 1
    return left + right  # products, and quotients as exact fractions
