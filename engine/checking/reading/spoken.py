"""Read maths said in words: `root d_k`, `square root of 512`, `d_k over 4`, `T squared`.

Learners who think aloud type what they would say: "sqrt of d_k", "d_k over 2", "2 times T
squared". A fair examiner reads those as the formulas they name. This module rewrites the few
phrases of spoken arithmetic into symbols, as text, before the maths reader sees it; an operator
word is rewritten only between operands (`over 40` alone is a threshold, not a division), and
anything else is left for the reader to accept or refuse.
"""

from __future__ import annotations

import re

# A root said in words; `√` takes the next operand, as in `√d_k`.
# `root (x, 3)` stays the function root(x, 3); `root of (d_k)` is a square root.
_ROOT = re.compile(
    r"\b(?:the\s+)?(?:square\s+root|sqrt|root)(?:\s+of\s+(?=[\w(√])|\s+(?=[\w√]))", re.I
)
_OPERAND_BEFORE = r"(?<=[\w)\]])"
_OPERAND_AFTER = r"(?=\s*[\w(√.])"
_BINARY = [
    (re.compile(rf"{_OPERAND_BEFORE}\s+(?:divided\s+by|over)\s+{_OPERAND_AFTER}", re.I), " / "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+(?:times|multiplied\s+by)\s+{_OPERAND_AFTER}", re.I), " * "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+plus\s+{_OPERAND_AFTER}", re.I), " + "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+minus\s+{_OPERAND_AFTER}", re.I), " - "),
    (re.compile(rf"{_OPERAND_BEFORE}\s+to\s+the\s+power(?:\s+of)?\s+{_OPERAND_AFTER}", re.I), "^"),
]
_POWER_WORDS = re.compile(rf"{_OPERAND_BEFORE}\s+(squared|cubed)\b", re.I)
_WORDS = re.compile(
    r"\b(?:root|sqrt\s+of|over|divided|times|multiplied|plus|minus|power|squared|cubed)\b", re.I
)


def read_spoken(text: str) -> str:
    """`text` with spoken arithmetic written as symbols (unchanged when it has none)."""
    if not _WORDS.search(text) or "\\" in text:  # LaTeX `\times` is the typography's
        return text
    text = _ROOT.sub("√", text)
    for pattern, symbol in _BINARY:
        text = pattern.sub(symbol, text)
    return _POWER_WORDS.sub(lambda m: "^2" if m.group(1).lower() == "squared" else "^3", text)
