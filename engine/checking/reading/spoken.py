"""Read maths said in words: `root d_k`, `square root of 512`, `d_k over 4`, `T squared`.

Learners who think aloud type what they would say: "sqrt of d_k", "d_k over 2", "2 times T
squared". A fair examiner reads those as the formulas they name. This module rewrites the few
phrases of spoken arithmetic into symbols, as text, before the maths reader sees it; an operator
word is rewritten only between operands (`over 40` alone is a threshold, not a division), and
anything else is left for the reader to accept or refuse.
"""

from __future__ import annotations

import re

from engine.checking.reading.brackets import ROUND_AND_SQUARE, top_level
from engine.checking.reading.safe_ast import one_slip

# A root said in words; `√` takes the next operand, as in `√d_k`.
# `root (x, 3)` stays the function root(x, 3); `root of (d_k)` is a square root.
_ROOT = re.compile(
    r"\b(?:the\s+)?(?:square\s+root|sqrt|root)(?:\s+of\s+(?=[\w(√])|\s+(?=[\w√]))", re.I
)
_OPERAND_BEFORE = r"(?<=[\w)\]])"
_OPERAND_AFTER = r"(?=\s*[\w(√.])"
_BINARY = [
    (re.compile(rf"{_OPERAND_BEFORE}\s+(?:divided\s+by|over)\s+{_OPERAND_AFTER}", re.I), " / "),
    (
        re.compile(
            rf"{_OPERAND_BEFORE}\s+(?:times|multiply|multiplied\s+(?:by|with))\s+{_OPERAND_AFTER}",
            re.I,
        ),
        " * ",
    ),
    (re.compile(rf"{_OPERAND_BEFORE}\s+plus\s+{_OPERAND_AFTER}", re.I), " + "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+minus\s+{_OPERAND_AFTER}", re.I), " - "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+to\s+the\s+power(?:\s+of)?\s+{_OPERAND_AFTER}", re.I), "^"),
]
_POWER_WORDS = re.compile(rf"{_OPERAND_BEFORE}\s+(squared|cubed)\b", re.I)
_WORDS = re.compile(
    r"\b(?:root|sqrt\s+of|over|divided|times|multiply|multiplied|plus|minus|power|squared|cubed"
    r"|of)\b",
    re.I,
)
# `softmax of Q K^T / √d_k, times V`: a function said in words takes what follows, up to a
# comma or the end; `the sum over j of x_j` is Σ_j x_j.
_FUNCTION_OF = re.compile(r"\b(softmax|exp|log|ln)\s+of\s+(?=[\w(√])", re.I)
_SUM_OVER = re.compile(r"\b(?:the\s+)?sum\s+over\s+([A-Za-z])\s+of\s+(?=\S)", re.I)


# The spoken words long enough that one slip of the keys (`sqaure`, `squre`, `dividd`) still
# names one of them and nothing else.
_SLIPPABLE = ("square", "squared", "divided", "multiplied", "times", "minus")
_LONG_WORD = re.compile(r"(?<![\w\\])[A-Za-z]{5,}(?!\w)")


def read_spoken(text: str) -> str:
    """`text` with spoken arithmetic written as symbols (unchanged when it has none)."""
    text = _LONG_WORD.sub(_unslipped, text) if len(text) <= 2000 else text
    if not _WORDS.search(text) or "\\" in text:  # LaTeX `\times` is the typography's
        return text
    text = _ROOT.sub("√", text)
    text = _SUM_OVER.sub(r"sum_\1 ", text)
    text = _function_of(text)
    for pattern, symbol in _BINARY:
        text = pattern.sub(symbol, text)
    return _POWER_WORDS.sub(lambda m: "^2" if m.group(1).lower() == "squared" else "^3", text)


def _function_of(text: str) -> str:
    """`softmax of A / B, times V` -> `softmax(A / B) times V`: the argument runs to the next
    comma outside brackets, or to the end."""
    match = _FUNCTION_OF.search(text)
    if match is None:
        return text
    start = match.end()
    for comma in top_level(",", text, start, brackets=ROUND_AND_SQUARE):
        inside, rest = text[start : comma.start()], text[comma.end() :]
        return f"{text[: match.start()]}{match.group(1)}({inside.strip()}) {_function_of(rest)}"
    return f"{text[: match.start()]}{match.group(1)}({text[start:].strip()})"


def _unslipped(word: re.Match[str]) -> str:
    """A word one slip from exactly one spoken word, as that word; any other word unchanged."""
    typed = word.group()
    near = [known for known in _SLIPPABLE if one_slip(typed.lower(), known)]
    return near[0] if len(near) == 1 and typed.lower() not in _SLIPPABLE else typed
