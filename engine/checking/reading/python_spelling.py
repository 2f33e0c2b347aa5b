"""Read NumPy and Python spellings inside maths as the maths they stand for, never as code.

Learners who code write `softmax(Q @ K.T / np.sqrt(d_k), axis=-1) @ V`, `np.transpose(K)`,
`K.transpose()`, `math.sqrt(d_k)` or `np.matmul(A, V)`. This module rewrites those spellings
as text, before the maths reader sees it: module prefixes go (`np.sqrt` is `sqrt`), method
calls become functions or operators (`K.transpose()` is `K^T`, `A.dot(V)` is `A @ (V)`), and the
axis of a softmax is honoured: `axis=-1` (or 1) is the row-wise softmax the maths means, while
`axis=0` normalises each column, which is read as softmax(Xᵀ)ᵀ and named as the wrong-axis
mistake. Nothing is evaluated; what cannot be rewritten is left for the safe parser to refuse.

`rewrite` returns the rewritten text and notes for the learner (the wrong axis, NumPy's no-op
`K.transpose(-2, -1)`), which the checker adds to its feedback when the answer is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.checking.reading.brackets import (
    ROUND_AND_SQUARE,
    matching_close,
    matching_open,
    split_top_level,
)

WRONG_AXIS = (
    "softmax(..., axis=0) normalises each column (over the queries); attention normalises "
    "each row, over the keys: axis=-1"
)
NO_OP_TRANSPOSE = (
    "in NumPy, `{call}` lists the axes in the order they already have, so it is a no-op that "
    "returns the array unchanged (PyTorch's transpose(-2, -1) swaps them; in NumPy write K.T "
    "or K.swapaxes(-2, -1))"
)

_MODULES = r"(?:np|numpy|math|torch|jnp|sp|sympy|scipy\.special|F)"
# `np.e`, `math.pi`, `np.inf`: module constants.
_MODULE_CONSTANT = re.compile(rf"\b{_MODULES}\.(e|pi|inf|infty|Inf|NINF|nan)\b(?!\s*\()")
_CONSTANTS = {"e": "e", "pi": "pi", "inf": "inf", "infty": "inf", "Inf": "inf", "NINF": "(-inf)"}
# `np.sqrt(`, `math.exp(`: a module function, called.
_MODULE_CALL = re.compile(rf"\b{_MODULES}\.([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# `.transpose(`, `.dot(`: a method, called on what comes before the dot.
_METHOD_CALL = re.compile(r"\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# `K.mT`: the matrix transpose of NumPy 2 and PyTorch (the last two axes), `K.T` for a matrix.
_MATRIX_TRANSPOSE = re.compile(r"\.\s*mT\b(?!\s*\()")
_SOFTMAX_CALL = re.compile(r"\b(?:softmax|Softmax)\s*\(")
# The axis of a softmax, by keyword or as its second argument (`F.softmax(S, -1)`, SciPy's
# `softmax(S, 1)`): both libraries take the axis second.
_AXIS_KEYWORD = re.compile(r"^\s*(?:(?:axis|dim)\s*=\s*)?([-+−]?\s*\d+)\s*$")
# Two-argument functions that are operators: np.matmul(A, B) is A @ B.
_OPERATOR_FUNCTIONS = {"matmul": "@", "dot": "@", "power": "**", "subtract": "-", "add": "+"}
_OPERATOR_FUNCTIONS |= {"multiply": "*", "divide": "/", "true_divide": "/"}
_SWAPS = {(1, 0), (-1, -2), (-1, 0), (1, -2), (0, 1, -1), (-2, -1, 0)}
_SAME = {(0, 1), (-2, -1), (0, -1), (-2, 1), ()}


@dataclass
class Rewritten:
    text: str
    notes: list[str] = field(default_factory=list)
    torch: bool = False


_TORCH = re.compile(r"\btorch\.|\bF\.|\bdim\s*=")


def rewrite(text: str) -> Rewritten:
    """Rewrite NumPy and Python spellings in `text`; see the module docstring.

    In PyTorch code (`torch.`, `F.softmax`, `dim=`) `K.transpose(-2, -1)` swaps the last two
    axes, as PyTorch's transpose does; in NumPy it is a no-op and is read as such."""
    result = Rewritten(text, torch=bool(_TORCH.search(text)))
    if "." not in text and "=" not in text and "|" not in text and "," not in text:
        return result
    result.text = _MODULE_CONSTANT.sub(lambda m: _CONSTANTS.get(m.group(1), m.group(1)), text)
    result.text = _MATRIX_TRANSPOSE.sub(".T", result.text)
    result.text = _absolute_bars(result.text)
    for _ in range(50):  # each pass rewrites one call; answers are short
        changed = _rewrite_one(result)
        if not changed:
            break
    return result


def _rewrite_one(result: Rewritten) -> bool:
    text = result.text
    match = _MODULE_CALL.search(text)
    if match:
        name = match.group(1)
        args, end = _arguments(text, match.end() - 1)
        if args is None:
            return False
        replacement = _module_function(name, args, result)
        if replacement is None:
            return False
        result.text = text[: match.start()] + replacement + text[end:]
        return True
    match = _METHOD_CALL.search(text)
    while match:
        operand_start = _operand_start(text, match.start())
        if operand_start is not None:
            args, end = _arguments(text, match.end() - 1)
            if args is None:
                return False
            operand = text[operand_start : match.start()]
            replacement = _method(operand, match.group(1), args, result)
            if replacement is not None:
                result.text = text[:operand_start] + replacement + text[end:]
                return True
        match = _METHOD_CALL.search(text, match.end())
    for match in _SOFTMAX_CALL.finditer(text):
        args, end = _arguments(text, match.end() - 1)
        if args is None or len(args) != 2:
            continue
        axis = _AXIS_KEYWORD.match(args[1])
        if axis is None:
            continue
        value = int(axis.group(1).replace("−", "-").replace(" ", ""))
        inner = args[0].strip()
        if value in (-1, 1):
            replacement = f"softmax({inner})"
        else:
            result.notes.append(WRONG_AXIS)
            replacement = f"transpose(softmax(transpose({inner})))"
        result.text = text[: match.start()] + replacement + text[end:]
        return True
    return False


def _module_function(name: str, args: list[str], result: Rewritten) -> str | None:
    if name in _OPERATOR_FUNCTIONS and len(args) == 2:
        return f"(({args[0]}) {_OPERATOR_FUNCTIONS[name]} ({args[1]}))"
    if name in {"transpose", "swapaxes", "moveaxis"} and args:
        axes = _axes(args[1:])
        if name == "transpose" and len(args) == 2 and axes is None:
            axes = _axes([a.strip().strip("()[]") for a in args[1].split(",")])
        if len(args) == 1 or (axes is not None and _is_swap(axes)):
            return f"transpose({args[0]})"
        if axes is not None and _is_same(axes):
            result.notes.append(NO_OP_TRANSPOSE.format(call=f"{name}({', '.join(args)})"))
            return f"({args[0]})"
        return None
    if name in {"array", "asarray", "copy"} and len(args) == 1:
        return f"({args[0]})"
    return f"{name}(" + ", ".join(args) + ")"


def _method(operand: str, name: str, args: list[str], result: Rewritten) -> str | None:
    if name in {"transpose", "swapaxes"}:
        axes = _axes(args)
        if name == "transpose" and not args:
            return f"transpose({operand})"
        if axes is not None and (_is_swap(axes) or (result.torch and len(axes) == 2)):
            return f"transpose({operand})"
        if axes is not None and _is_same(axes):
            call = f"{operand}.{name}({', '.join(a.strip() for a in args)})"
            result.notes.append(NO_OP_TRANSPOSE.format(call=call))
            return operand
        return None
    if name == "t" and not args and result.torch:  # PyTorch's K.t(): a 2-D transpose
        return f"transpose({operand})"
    if name in {"dot", "matmul"} and len(args) == 1:
        return f"({operand} @ ({args[0]}))"
    if name in {"copy", "conj"} and not args:
        return operand
    if name in {"sqrt", "exp", "log"} and not args:
        return f"{name}({operand})"
    if name == "sum" and not args:  # `np.exp(s - m).sum()`: np.sum(np.exp(s - m))
        return f"sum({operand})"
    return None


def _axes(args: list[str]) -> tuple[int, ...] | None:
    try:
        return tuple(int(a.replace("−", "-").replace(" ", "")) for a in args if a.strip())
    except ValueError:
        return None


def _is_swap(axes: tuple[int, ...]) -> bool:
    return axes in _SWAPS


def _is_same(axes: tuple[int, ...]) -> bool:
    return axes in _SAME


def _arguments(text: str, open_at: int) -> tuple[list[str] | None, int]:
    """The comma-separated arguments of the bracket opening at `open_at`, and where it ends."""
    close = matching_close(text, open_at)
    if close is None:
        return None, len(text)
    args = split_top_level(text[open_at + 1 : close], ",")
    if len(args) == 1 and not args[0].strip():
        args = []  # `f()`, `f( )`: no argument
    return [a.strip() for a in args], close + 1


def _operand_start(text: str, dot: int) -> int | None:
    """Where the operand that ends just before `text[dot]` starts: a name or a bracket."""
    i = dot
    while i > 0 and text[i - 1] == " ":
        i -= 1
    if i == 0:
        return None
    if text[i - 1] in ")]":
        j = matching_open(text, i - 1, ROUND_AND_SQUARE)
        if j is None:
            return None
        # A call such as `f(x).T` takes its function name along.
        k = j
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_."):
            k -= 1
        return k
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_ᵀ"):
        j -= 1
    if j == i or text[j].isdigit():
        return None
    return j


def _absolute_bars(text: str) -> str:
    """`|x|` is abs(x); a bar opens after an operator or at the start, and closes otherwise."""
    if "|" not in text or text.count("|") % 2:
        return text
    out, open_bars = [], 0
    previous = ""
    for char in text:
        if char == "|":
            opening = open_bars == 0 or previous in ("", "(", "[", ",", "+", "-", "*", "/", "^")
            if opening:  # apart from a name before it: `ln|x|` is ln(abs(x)), not `lnabs`
                out.append(" abs(" if previous.isalnum() or previous == "_" else "abs(")
                open_bars += 1
            else:
                out.append(")")
                open_bars -= 1
        else:
            out.append(char)
        if not char.isspace():
            previous = char
    return "".join(out) if open_bars == 0 else text
