"""Plain-ASCII math as banks write answers (`softmax(Q K^T / sqrt(d_k)) V`) as MathJax for Anki.

Anki renders `\\( ... \\)` with MathJax. The translation is deliberately literal: it keeps the
author's order and grouping (no algebra), and only spells what LaTeX spells differently:
roots, powers and transposes, subscripts, Greek letters and named functions.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:_\{?[A-Za-z0-9]+\}?)?"  # a name, perhaps with a subscript
    r"|\d+(?:\.\d+)?(?:e[-+]?\d+)?"  # a number
    r"|\.T(?![A-Za-z0-9_])"  # NumPy's transpose
    r"|\S"
)
_GREEK = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "theta",
    "lambda",
    "mu",
    "pi",
    "sigma",
    "tau",
    "Sigma",
}
# Functions LaTeX knows by name, and ours that it does not.
_BUILTIN = {"exp", "log", "ln", "max", "min", "sin", "cos", "tanh"}
_NAMED = {"softmax", "Var", "E", "Attention", "diag", "mask", "std"}
_SYMBOLS = {
    "*": r"\cdot",
    "@": r"\,",
    "·": r"\cdot",
    "×": r"\times",
    "<=": r"\le",
    ">=": r"\ge",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "$": r"\$",
    "\\": r"\backslash",
}


def mathjax(text: str) -> str:
    """`text` as inline MathJax, `\\( ... \\)`."""
    return r"\(" + to_latex(text) + r"\)"


def to_latex(text: str) -> str:
    tokens = _TOKEN.findall(text.replace("**", "^").replace("-inf", "-∞"))
    latex, _ = _sequence(tokens, 0, closing=None)
    return latex


def _sequence(tokens: list[str], i: int, closing: str | None) -> tuple[str, int]:
    """LaTeX of tokens[i:] up to `closing` (not included); returns it and the closing index."""
    out: list[str] = []
    while i < len(tokens) and tokens[i] != closing:
        token = tokens[i]
        calls = i + 1 < len(tokens) and tokens[i + 1] == "("
        if token == "(":
            inner, i = _sequence(tokens, i + 1, ")")
            out.append(f"({inner})")
        elif calls and token == "sqrt":
            inner, i = _sequence(tokens, i + 2, ")")
            out.append(rf"\sqrt{{{inner}}}")
        elif calls and token in _BUILTIN | _NAMED:
            inner, i = _sequence(tokens, i + 2, ")")
            out.append(f"{_name(token)}({inner})")
        elif token == "^":
            power, i = _exponent(tokens, i + 1)
            out.append(f"^{{{power}}}")
        elif token == ".T":
            out.append(r"^{\top}")
        elif token == "<" or token == ">":
            pair = token + "=" if i + 1 < len(tokens) and tokens[i + 1] == "=" else token
            i += len(pair) - 1
            out.append(_SYMBOLS.get(pair, pair))
        else:
            out.append(_atom(token))
        i += 1
    return " ".join(out).replace(" ,", ","), i


def _exponent(tokens: list[str], i: int) -> tuple[str, int]:
    if i >= len(tokens):
        return "", i
    if tokens[i] == "(":
        return _sequence(tokens, i + 1, ")")
    if tokens[i] == "-" and i + 1 < len(tokens):
        return "-" + _atom(tokens[i + 1]), i + 1
    return (r"\top" if tokens[i] == "T" else _atom(tokens[i])), i


def _atom(token: str) -> str:
    if token in _SYMBOLS:
        return _SYMBOLS[token]
    if token == "inf" or token == "∞":
        return r"\infty"
    if not token[0].isalpha() or not token.isascii():
        return token
    base, _, sub = token.partition("_")
    shown = _name(base)
    return f"{shown}_{{{sub.strip('{}')}}}" if sub else shown


def _name(word: str) -> str:
    if word in _GREEK:
        return "\\" + word
    if word in _BUILTIN:
        return "\\" + word
    if word == "sum":
        return r"\sum"
    if len(word) == 1:
        return word
    return rf"\operatorname{{{word}}}" if word in _NAMED else rf"\mathrm{{{word}}}"
