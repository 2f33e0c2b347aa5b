"""Judge a blank in NumPy code by what it computes, never by running it as Python.

A cloze card over code (`S = Q @ {{K.T}} / np.sqrt(Q.shape[-1])`) accepts any piece that
computes the same thing: `K.T`, `K.transpose()`, `np.swapaxes(K, 0, 1)` and `K.transpose(1, 0)`
are one answer; `K.transpose(-2, -1)` (a no-op in NumPy) is not, and gets that explained. The
card's code, with the blank filled by the reference and then by the learner's piece, is walked
by a small interpreter of a whitelisted NumPy subset (arithmetic, `@`, attributes such as `.T`
and `.shape`, and a list of NumPy functions and methods that cannot allocate more than their
inputs) on random arrays, and the value of the statement holding the blank is compared. Python's
own parser only builds the syntax tree; nothing is compiled or executed, and any construct
outside the subset makes the piece unreadable, with a message that names it.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.checking.reading.python_spelling import NO_OP_TRANSPOSE
from engine.errors import AnswerError

MAX_PIECE = 300
TRIALS = 3
# Dimensions of the random inputs: all different, so a swapped axis always shows.
T_Q, T_K, D_K, D_V = 5, 7, 4, 3


_OTHER_LITERALS = re.compile(r"(?<![\w.])(true|false|none)(?![\w(])", re.IGNORECASE)


class _Failure(Exception):
    """The code cannot be computed (a shape mismatch, a name that does not exist)."""


@dataclass(frozen=True)
class CodeVerdict:
    same: bool
    note: str = ""


def judge_piece(code: str, references: Sequence[str], piece: str, blank: str) -> CodeVerdict | None:
    """Compare `piece` in `code`, where `blank` marks the blank, with each of `references`
    (spellings that are all right): the piece is the same when it computes what one of them
    does. References outside the subset are passed over.

    Returns None when the card's own code is outside the subset for every reference (the caller
    then compares text); raises AnswerError when the piece cannot be read.
    """
    if len(piece) > MAX_PIECE:
        raise AnswerError(f"could not read this: keep the piece under {MAX_PIECE} characters")
    piece = piece.strip().replace("−", "-").replace("∞", "np.inf")
    # `true`, `false`, `none`: another language's spelling of Python's literals.
    piece = _OTHER_LITERALS.sub(lambda m: m.group(1).lower().capitalize(), piece)
    if re.search(r"\^|[ᵀ⊤]", piece):  # maths in a blank of code: `K^T` is XOR in Python
        raise AnswerError(
            "could not read this: `^` and `ᵀ` are maths, not NumPy; type the code "
            "(K.T for a transpose, ** for a power)"
        )
    try:
        piece_tree = ast.parse(piece, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise AnswerError("could not read this: type one Python expression, such as K.T") from None
    _refuse_outside_subset(piece_tree)
    # The piece as its tree reads it, so that a comment (`K.T  # transpose`) or a line break
    # cannot spill into the code around the blank.
    piece = ast.unparse(piece_tree)
    import numpy as np

    stripped = code.strip("\n")
    line = stripped[: stripped.index(blank)].count("\n") + 1 if blank in stripped else 0
    note = ""
    no_op = bool(re.search(r"\.transpose\(\s*(?:0\s*,\s*1|-2\s*,\s*-1)\s*\)", piece))
    # The references that compute at all; each stays a candidate while it agrees in every trial.
    candidates = list(dict.fromkeys(references))
    for trial in range(TRIALS):
        values = {}
        for reference in candidates:
            try:
                filled = code.replace(blank, f"({reference})")
                values[reference] = _run(filled, np.random.default_rng(trial), line)
            except (_Failure, SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError):
                continue
        if not values:
            return None
        try:
            got = _run(code.replace(blank, f"({piece})"), np.random.default_rng(trial), line)
        except _Failure as failure:
            if str(failure).startswith("unknown:"):
                raise AnswerError(f"could not read this: {str(failure)[8:]}") from None
            return CodeVerdict(
                False, _with_no_op(f"it cannot be computed here: {failure}", no_op, piece)
            )
        except SyntaxError:  # the piece does not fit where the blank is
            raise AnswerError(
                "could not read this: type one Python expression, such as K.T"
            ) from None
        except (ValueError, TypeError, ArithmeticError, IndexError, RecursionError) as exc:
            return CodeVerdict(False, _with_no_op(_cannot(exc), no_op, piece))
        candidates = [ref for ref, expected in values.items() if _same(expected, got)]
        if not candidates and _between_accepted_numbers(list(values.values()), got):
            return CodeVerdict(True)
        if not candidates:
            if no_op:
                note = NO_OP_TRANSPOSE.format(call=piece)
            elif line and _same_result(code, list(values), piece, blank, line):
                # `np.exp(S) / np.exp(S).sum(...)` where the next line normalises anyway
                return CodeVerdict(True, "this line differs, but the function returns the same")
            return CodeVerdict(False, note)
    return CodeVerdict(True)


# How much larger than usual the inputs of the last trials are: scores in the thousands, where
# an unstable softmax (a max over the wrong axis, none at all) overflows or underflows.
LARGE_INPUTS = 60.0


def _same_result(code: str, references: list[str], piece: str, blank: str, line: int) -> bool:
    """Whether `piece` does the work of its line and of lines after it at once, so that the
    card's function returns the same: `np.exp(S) / np.exp(S).sum(...)` where the next line
    normalises. Its line must give what a later line of the reference gives, and the function
    the same finite result as with the reference, on ordinary inputs and on large ones. A piece
    whose difference the later lines merely hide (`np.exp(S) * 2`) is not the same."""
    failures = (_Failure, SyntaxError, ValueError, TypeError, ArithmeticError, IndexError)
    for trial in range(TRIALS):
        for scale in (1.0, LARGE_INPUTS):
            try:
                mine = _trace(code.replace(blank, f"({piece})"), line, trial, scale)
            except (*failures, RecursionError):
                return False
            agrees = False
            for reference in references:
                try:
                    theirs = _trace(code.replace(blank, f"({reference})"), line, trial, scale)
                except (*failures, RecursionError):
                    continue
                agrees = agrees or _does_later_work(mine, theirs)
            if not agrees:
                return False
    return True


def _trace(code: str, line: int, trial: int, scale: float) -> list[tuple[bool, Any]]:
    import numpy as np

    trace: list[tuple[bool, Any]] = []
    _run(code, np.random.default_rng(trial), line, scale, trace)
    return trace


def _does_later_work(mine: list[tuple[bool, Any]], theirs: list[tuple[bool, Any]]) -> bool:
    import numpy as np

    if len(mine) != len(theirs) or not mine:
        return False
    at = next((i for i, (holds, _) in enumerate(mine) if holds), None)
    if at is None or not np.all(np.isfinite(np.asarray(mine[-1][1], dtype=float))):
        return False
    later = any(_same(value, mine[at][1]) for _, value in theirs[at + 1 :])
    return later and _same(mine[-1][1], theirs[-1][1])


def _between_accepted_numbers(accepted: list[Any], got: Any) -> bool:
    """Whether `got` is a number between accepted ones that are decimals of one sign: a card that
    accepts -1e4, -1e9 and -np.inf as a mask's "minus infinity" accepts -1e20 too. Whole
    numbers (an axis: -1 and 1, not 0) and flags are never widened into a range."""
    import numpy as np

    def real(value: Any) -> bool:
        return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
            value, bool | np.bool_
        )

    if not real(got) or len(accepted) < 2 or not all(real(v) for v in accepted):
        return False
    if not any(isinstance(v, float | np.floating) for v in accepted) or math.isnan(got):
        return False
    if not (all(v > 0 for v in accepted) or all(v < 0 for v in accepted)):
        return False
    return bool(min(accepted) <= got <= max(accepted))


def _cannot(exc: Exception) -> str:
    message = str(exc).split(" with gufunc")[0].split("\n")[0][:160]
    if "mismatch" in message or "broadcast" in message or "aligned" in message:
        return f"the shapes do not fit together here ({message})"
    return f"it cannot be computed here ({type(exc).__name__}: {message})"


def _with_no_op(message: str, no_op: bool, piece: str) -> str:
    return f"{NO_OP_TRANSPOSE.format(call=piece)}; {message}" if no_op else message


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    try:
        left, right = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return bool(a == b)
    if left.shape != right.shape:
        return False
    return bool(np.allclose(left, right, rtol=1e-9, atol=1e-12, equal_nan=True))


def _refuse_outside_subset(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id.startswith("_") or "__" in node.id):
            raise AnswerError(f"could not read this: `{node.id}` is not a name of this code")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise AnswerError(f"could not read this: `.{node.attr}` is not allowed")
        if not isinstance(node, _ALLOWED_NODES):
            raise AnswerError(
                f"could not read this: `{type(node).__name__}` is not part of the NumPy this "
                "checker reads; type an expression such as np.sqrt(Q.shape[-1])"
            )


_ALLOWED_NODES = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.Subscript,
    ast.Slice, ast.Tuple, ast.List, ast.Call, ast.keyword, ast.BinOp, ast.UnaryOp,
    ast.operator, ast.unaryop,
)  # fmt: skip


# -- the interpreter ----------------------------------------------------------------------------
def _run(
    code: str,
    rng: Any,
    line: int,
    scale: float = 1.0,
    trace: list[tuple[bool, Any]] | None = None,
) -> Any:
    """The value of the statement on `line` (1-based, counted in the code without its leading
    and trailing blank lines), where the blank is; the last statement's if `line` is 0. With
    a `trace`, every statement runs and leaves its value there, marked True on `line`. The
    function's random inputs are multiplied by `scale`."""
    tree = ast.parse(code.strip("\n"))
    body = tree.body
    env = _environment()
    if len(body) == 1 and isinstance(body[0], ast.FunctionDef):
        function = body[0]
        defaults = function.args.defaults
        names = [a.arg for a in function.args.args]
        for offset, default in enumerate(defaults):
            env[names[len(names) - len(defaults) + offset]] = _Evaluator(env).value(default)
        for name in names:
            env.setdefault(name, _input_for(name, rng) * scale)
        body = function.body
    else:
        # A piece of a formula on its own (`(G * A).sum(-1, keepdims=True)`): every name it
        # uses is an input, drawn from the name, so that two spellings see the same arrays.
        base = int(rng.integers(1 << 30))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in env and node.id not in _BUILTINS:
                env[node.id] = _input_for(node.id, _rng_for(base, node.id))
    result: Any = None
    evaluator = _Evaluator(env)
    # Names the code assigns: one used before its line is defined, only not yet (a wrong piece).
    evaluator.assigned = {
        target.id
        for statement in body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for statement in body:
        holds_blank = statement.lineno <= line <= (statement.end_lineno or statement.lineno)
        if isinstance(statement, ast.Return) and statement.value is not None:
            result = evaluator.value(statement.value)
            if trace is not None:
                trace.append((holds_blank, result))
            return result
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                result = evaluator.value(statement.value)
                env[target.id] = result
                if trace is not None:
                    trace.append((holds_blank, result))
                elif holds_blank:
                    return result
                continue
        if isinstance(statement, ast.Expr) and len(body) == 1:
            return evaluator.value(statement.value)  # a piece on its own
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        raise _Failure("the card's code is outside the subset")
    return result


def _environment() -> dict[str, Any]:
    import numpy as np

    return {
        "np": np, "numpy": np, "math": math, "inf": math.inf, "infinity": math.inf,
        "torch": TORCH,
    }  # fmt: skip


class _Torch:
    """PyTorch's constants in a NumPy blank (`-torch.inf` in a mask); its functions are not read:
    they differ from NumPy's in their arguments (torch.transpose(K, 0, 1))."""


TORCH = _Torch()
_TORCH_CONSTANTS = {"inf": math.inf, "pi": math.pi, "e": math.e, "nan": math.nan}


def _rng_for(base: int, name: str) -> Any:
    import numpy as np

    return np.random.default_rng([base, *name.encode()])


def _input_for(name: str, rng: Any) -> Any:
    shapes = {"Q": (T_Q, D_K), "K": (T_K, D_K), "V": (T_K, D_V), "q": (D_K,), "k": (D_K,)}
    return rng.normal(size=shapes.get(name, (T_Q, T_K)))


_NUMPY_FUNCTIONS = frozenset(
    {"sqrt", "exp", "log", "power", "transpose", "swapaxes", "moveaxis", "matmul", "dot"}
    | {"einsum", "max", "min", "amax", "amin", "sum", "mean", "subtract", "add", "multiply"}
    | {"divide", "true_divide", "maximum", "minimum", "abs", "square", "array", "asarray"}
    | {"shape", "copy", "negative", "float64", "float32", "tanh", "logaddexp", "e", "pi"}
    | {"inf", "infty", "NINF", "newaxis", "reshape", "finfo", "float16"}
    | {"exp2", "log2", "log10", "expm1", "log1p", "size", "ndim", "tensordot"}
    | {"flip", "ones", "zeros", "ones_like", "zeros_like", "full", "eye", "True_", "False_"}
)
# Functions that allocate what their arguments ask for: bounded, like every other input.
_ALLOCATING = frozenset({"ones", "zeros", "full", "eye"})
MAX_ALLOCATED = 100_000
_LINEAR_ALGEBRA = frozenset({"inv", "pinv", "norm", "det"})
_MATH_FUNCTIONS = frozenset({"sqrt", "exp", "log", "e", "pi", "inf", "pow", "nan"})
_ARRAY_METHODS = frozenset(
    {"transpose", "swapaxes", "max", "min", "sum", "mean", "dot", "copy", "T", "mT"}
    | {"shape", "ndim", "size", "reshape"}
)
# NumPy functions a learner may call without the module, as after `from numpy import exp`.
_BARE_NUMPY = frozenset({"sqrt", "exp", "log", "transpose", "swapaxes", "matmul", "dot"})
_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len, "float": float, "int": int, "abs": abs, "max": max, "min": min,
}  # fmt: skip


def _bounded(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (np.ones, np.eye ...) refusing to allocate more than MAX_ALLOCATED numbers."""

    def call(*args: Any, **kwargs: Any) -> Any:
        sizes = [a for a in args[:2] if isinstance(a, int)]
        if args and isinstance(args[0], tuple):
            sizes = [a if isinstance(a, int) else MAX_ALLOCATED + 1 for a in args[0]]
        if not sizes or math.prod(max(0, n) for n in sizes) > MAX_ALLOCATED:
            raise _Failure("unknown:that array would be too large")
        return function(*args, **kwargs)

    return call


class _Evaluator:
    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env
        self.assigned: set[str] = set()

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int | float | bool | str) or node.value is None:
                return node.value
            raise _Failure("unknown:this kind of constant is not allowed")
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node.id in _BUILTINS:
                return _BUILTINS[node.id]
            if node.id in _BARE_NUMPY:  # `exp(S)`, `sqrt(...)`: NumPy's, imported by name
                import numpy as np

                return getattr(np, node.id)
            if node.id in self.assigned:
                raise _Failure(f"`{node.id}` has no value yet on this line")
            raise _Failure(f"unknown:`{node.id}` is not a name this code defines")
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Subscript):
            base = self.value(node.value)
            index = self._index(node.slice)
            return base[index]
        if isinstance(node, ast.Tuple | ast.List):
            items = [self.value(item) for item in node.elts]
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return +operand
            raise _Failure("unknown:only - and + may come before a value")
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        raise _Failure(f"unknown:`{type(node).__name__}` is not allowed")

    def _index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Slice):
            parts = [
                None if p is None else self.value(p) for p in (node.lower, node.upper, node.step)
            ]
            return slice(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(self._index(item) for item in node.elts)
        return self.value(node)

    def _attribute(self, node: ast.Attribute) -> Any:
        import numpy as np

        base = self.value(node.value)
        name = node.attr
        if base is TORCH:
            if name in _TORCH_CONSTANTS:
                return _TORCH_CONSTANTS[name]
            raise _Failure(f"unknown:`torch.{name}` is not part of the NumPy this checker reads")
        if base is np:
            if name in {"inf", "infty", "Inf", "Infinity", "PINF"}:
                return np.inf
            if name == "NINF":
                return -np.inf
            if name in {"nan", "NaN", "NAN"}:
                return np.nan
            if name == "linalg":
                return np.linalg
            if name in _ALLOCATING:
                return _bounded(getattr(np, name))
            if name in _NUMPY_FUNCTIONS and hasattr(np, name):
                return getattr(np, name)
            if not hasattr(np, name):  # a name NumPy does not have: this code would fail
                raise _Failure(f"NumPy has no `np.{name}`")
            raise _Failure(f"unknown:`np.{name}` is not part of the NumPy this checker reads")
        if base is np.linalg:
            if name in _LINEAR_ALGEBRA:
                return getattr(np.linalg, name)
            raise _Failure(
                f"unknown:`np.linalg.{name}` is not part of the NumPy this checker reads"
            )
        if base is math:
            if name in _MATH_FUNCTIONS:
                return getattr(math, name)
            if not hasattr(math, name):
                raise _Failure(f"Python's math module has no `math.{name}`")
            raise _Failure(f"unknown:`math.{name}` is not part of what this checker reads")
        if isinstance(base, np.ndarray | np.generic) and name in _ARRAY_METHODS:
            return getattr(base, name)
        if isinstance(base, np.ndarray) and not hasattr(base, name):
            raise _Failure(f"a NumPy array has no attribute `.{name}`")
        if isinstance(base, np.finfo) and name in {"min", "max", "eps", "tiny"}:
            return getattr(base, name)  # np.finfo(np.float32).min, a mask's "minus infinity"
        raise _Failure(f"unknown:`.{name}` is not part of the NumPy this checker reads")

    def _binary(self, node: ast.BinOp) -> Any:
        left, right = self.value(node.left), self.value(node.right)
        op = node.op
        if any(isinstance(x, str | list | tuple | bytes) for x in (left, right)):
            raise _Failure("unknown:arithmetic on text or lists is not allowed")
        both_whole = isinstance(left, int) and isinstance(right, int)
        if isinstance(op, ast.Pow) and both_whole and (abs(right) > 64 or abs(left) > 10**6):
            raise _Failure("the power is too large")
        operations: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
            ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
            ast.Pow: lambda a, b: a**b, ast.MatMult: lambda a, b: a @ b,
            ast.FloorDiv: lambda a, b: a // b,
        }  # fmt: skip
        if type(op) not in operations:
            raise _Failure("unknown:this operator is not allowed")
        import numpy as np

        with np.errstate(all="ignore"):
            return operations[type(op)](left, right)

    def _call(self, node: ast.Call) -> Any:
        import numpy as np

        function = self.value(node.func)
        args = [self.value(a) for a in node.args]
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg not in {"axis", "keepdims", "axes"}:
                raise _Failure(f"unknown:the keyword `{keyword.arg}=` is not allowed here")
            kwargs[keyword.arg] = self.value(keyword.value)
        texts = {"inf", "-inf", "+inf", "nan", "infinity"}
        if function is float and args and isinstance(args[0], str) and args[0].lower() not in texts:
            raise _Failure("unknown:float() of that text is not allowed")
        if function is np.einsum and (not args or not isinstance(args[0], str)):
            raise _Failure("unknown:np.einsum needs its subscripts first")
        if not callable(function):  # `K.T()`: read, and it fails as Python fails on it
            raise _Failure(f"`{ast.unparse(node.func)}` is a value, not a function to call")
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
