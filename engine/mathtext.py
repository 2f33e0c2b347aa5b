"""Show plain-ASCII math (as banks write answers) in readable Unicode: √d_k, Kᵀ, T², δ_ij."""

from __future__ import annotations

import re

_SUPERSCRIPT = str.maketrans("0123456789+-()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ")
_GREEK = {"delta": "δ", "tau": "τ", "sigma": "σ", "mu": "μ", "pi": "π", "Sigma": "Σ"}


def _matching_paren(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _roots(text: str) -> str:
    out = []
    i = 0
    while (j := text.find("sqrt(", i)) != -1:
        close = _matching_paren(text, j + 4)
        if close == -1:
            break
        inner = _roots(text[j + 5 : close])
        simple = re.fullmatch(r"[\w.]+", inner) is not None
        out.append(text[i:j] + ("√" + inner if simple else "√(" + inner + ")"))
        i = close + 1
    out.append(text[i:])
    return "".join(out)


def pretty_math(text: str) -> str:
    """`softmax(Q K^T / sqrt(d_k)) V` -> `softmax(Q Kᵀ / √d_k) V`."""
    s = text.replace("**", "^")
    s = _roots(s)
    s = re.sub(r"\^\{?T\}?(?![A-Za-z0-9_])", "ᵀ", s)
    s = re.sub(r"\.T(?![A-Za-z0-9_])", "ᵀ", s)
    s = re.sub(r"\^(-?\d+|n)(?![\d.])", lambda m: m.group(1).translate(_SUPERSCRIPT), s)
    s = re.sub(r"\^\((-?\d+)\)", lambda m: m.group(1).translate(_SUPERSCRIPT), s)
    for name, letter in _GREEK.items():
        s = re.sub(rf"(?<![A-Za-z]){name}(?=_|\b)", letter, s)
    s = re.sub(r"(?<=\S) ?\* ?(?=\S)", "·", s)
    return s.replace("-inf", "−∞").replace(" - ", " − ")
