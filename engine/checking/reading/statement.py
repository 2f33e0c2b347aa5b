"""Split a typed answer into what it states: an optional left side, a chain of links, a remark.

Learners answer as they would on paper: `Var(q·k) = d_k`, `√512 ≈ 22.6`,
`2T²d_k/(8Td_k + 8T²) = Td_k/(4(d_k+T))`, `d_k/4 = 10 → d_k = 40`, `8 (√64)`,
`0 (each term has mean 0)`. This module only splits the text; what each piece means is decided
by the checker of the item's kind (expression, number), which reads each link with the safe
reader and judges the left side with `asked`.

- Implications (`→`, `⇒`, `=>`, `;`, `so`, `hence`, `therefore`) separate statements: the last
  one is the answer (`T d_k / (4 (d_k + T)) → d_k / 4` answers with d_k / 4).
- Relations (`=`, `≈`, `~=`, `>`, `≥`, `:` ...) at the top level separate the links of a chain;
  the last link is the answer, every `=` link must hold, and the first link may be a label.
- A leading `≈`, `~` or `about` marks a rounded value; it is dropped.
- A hedge or label before the answer (`i think`, `not sure but`, `answer:`), a hedge after it
  (`8, i think`) and a trailing question mark (`16?`) only say how sure the learner is; they
  are dropped, as is the subject of an answer said as a sentence (`it is zero`, `the variance
  is d_k`) and a comment after `#`, as Python writes one (`K.T  # the transpose`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.checking.reading.brackets import ROUND, matching_open, split_top_level, top_level

# Relations and implications as LaTeX spells them: `\sqrt{512} \approx 22.6`, `a \Rightarrow b`.
_LATEX_RELATIONS = {
    "approx": "≈", "thickapprox": "≈", "simeq": "≃", "cong": "≅", "geq": "≥", "ge": "≥",
    "geqslant": "≥", "leq": "≤", "le": "≤", "leqslant": "≤", "in": "∈", "to": "→",
    "rightarrow": "→", "longrightarrow": "→", "Rightarrow": "⇒", "Longrightarrow": "⇒",
    "implies": "⇒", "therefore": " therefore ",
}  # fmt: skip
_LATEX_RELATION = re.compile(r"\\(" + "|".join(_LATEX_RELATIONS) + r")(?![A-Za-z])")
# The relations that state a rounded value: `√512 ≈ 22.6`.
APPROXIMATE_RELATIONS = frozenset({"≈", "~=", "≃", "≅"})
# (LaTeX's `\Rightarrow`, `\approx` ... are these signs by then: `_LATEX_RELATIONS`.)
# "709.8 or so" is a hedge, not an implication.
_IMPLICATION = re.compile(
    r"→|⇒|=>|->|⟹|;|\b(?:(?<!\bor )so|hence|therefore|thus|gives)\b", re.IGNORECASE
)
_RELATION = re.compile(r"==|~=|≈|≃|≅|>=|<=|≥|≤|=|>|<|∈|:")
_APPROXIMATELY = re.compile(
    r"^\s*(?:≈|~=?|about\b|around\b|roughly\b|exactly\b"
    r"|approx(?:\.|imately\b)?)\s*",
    re.IGNORECASE,
)
# `i think 8`, `probably 16`, `answer: 40`, `my answer is 3`: how sure the learner is, or a label.
# `im pretty sure its 8`: typed fast, without the apostrophes.
_HEDGE_WORDS = (
    r"(?:i\s+(?:think|guess|believe|reckon|suppose)|i'?d\s+(?:say|guess)|probably|maybe|perhaps"
    r"|(?:i'?m\s+)?(?:not|pretty|fairly|quite|almost)\s+(?:sure|certain)(?:\s+but)?)"
)
_HEDGE = re.compile(
    rf"^\s*(?:{_HEDGE_WORDS}|(?:my|the)\s+answer(?:\s+is)?|answer|ans)\b"
    r"(?:\s+(?:it'?s|it\s+is)\b)?(?:\s*[:,])?(?=\s*+\S)\s*",
    re.IGNORECASE,
)
# `it is zero`, `the variance is d_k`, `the shape is T_q x T_k`: the answer said as a sentence
# about the thing asked; the subject is a label. `it sees i keys`, `it takes 2T²d_k FLOPs`: the
# same with another verb, one that says what the thing asked does or has.
_SUBJECT = re.compile(
    r"^\s*(?:it'?s|it\s+is|this\s+is|that\s+is|(?:the|its)\s+[a-z]+(?:\s+[a-z]+)?\s+is"
    r"|it\s+(?!is\b)[a-z]{2,}s)\s+(?=\S)",
    re.IGNORECASE,
)
# `softmax(...) V  # row-wise`: a comment after the answer, as Python writes one, is a remark.
_COMMENT = re.compile(r"(?<=\S)\s+#.*[A-Za-z].*$", re.DOTALL)
# `8 i think`, `(T_q, T_k), probably`: the same hedges after the answer.
_TRAILING_HEDGE = re.compile(rf"(?<=\S)(?:\s*,)?\s+{_HEDGE_WORDS}\s*[.!?]*\s*$", re.IGNORECASE)
# `22.6 approx`, `22.6.`: a rounding word or a full stop after the answer. A trailing comma is
# not dropped: it says more was to follow (`a+b,`), so the answer is incomplete.
_TRAILING = re.compile(
    r"(?<=\S)(?:\s+(?:approx(?:\.|imately)?|roughly|or so)|(?<=\d)\.(?!\d)|\s*\.\s*)+\s*$",
    re.IGNORECASE,
)
# `p_i(δ_ij − p_j) for all i, j`: a qualifier after the answer. Both patterns start only after a
# character that is not a space, so a run of spaces costs no backtracking.
# `p_i(1 - p_i) since δ_ii = 1`, `0, since E[q_i]=0`: a reason after the answer.
_REASON = re.compile(
    r"(?<=\S)(?:\s*,)?\s+"
    r"(?:since|because|(?<!divided )(?<!multiplied )by(?=\s+[a-z]{4,}\b(?!\s*\()))\s.*$",
    re.IGNORECASE | re.DOTALL,
)
# `-p_i p_j for i ≠ j`, `d_k/4 when T ≫ d_k`: the case the answer holds for.
_QUALIFIER = re.compile(
    r"(?<=\S)(?:\s*,)?\s+(?:for|where|when|if)\s+"
    r"(?:(?:all|every|each|any)\b|\w+\s*(?:≠|!=|≫|≪|>|<|≥|≤|→)).*$",
    re.IGNORECASE | re.DOTALL,
)
_RELATION_SIGNS = {"==": "=", "\\approx": "≈", "\\simeq": "≃", "\\cong": "≅", "\\ge": "≥"}
_RELATION_SIGNS |= {"\\geq": "≥", "\\le": "≤", "\\leq": "≤", "\\in": "∈"}


@dataclass(frozen=True)
class Chain:
    """`links[0] rel[0] links[1] rel[1] ... links[-1]`; the last link is the answer."""

    links: tuple[str, ...]
    relations: tuple[str, ...]

    @property
    def answer(self) -> str:
        return self.links[-1]

    @property
    def rounded(self) -> bool:
        """Whether the answer is stated as a rounded value of the link before it (`√512 ≈ 22.6`)."""
        return bool(self.relations) and self.relations[-1] in APPROXIMATE_RELATIONS


def split_chain(text: str, *, colon: bool = True) -> Chain:
    """The last statement of `text`, split into its links (see the module docstring)."""
    text = _LATEX_RELATION.sub(lambda m: _LATEX_RELATIONS[m.group(1)], text)
    statement = _last_statement(_COMMENT.sub("", text, count=1))
    statement = _TRAILING_HEDGE.sub("", _HEDGE.sub("", statement, count=1), count=1).rstrip()
    statement = _SUBJECT.sub("", statement, count=1)
    if statement.endswith("?") and statement.rstrip("?").strip():  # `16?`: a hedge too
        statement = statement.rstrip("?")
    statement = _APPROXIMATELY.sub("", statement, count=1)
    statement = _REASON.sub("", _without_dash_remark(statement))
    statement = _TRAILING.sub("", _QUALIFIER.sub("", statement))
    statement = _without_comma_remark(statement if colon else _without_prose_label(statement))
    links, relations = [], []
    start = 0
    for match in top_level(_RELATION, statement):
        if colon or match.group() != ":":
            links.append(statement[start : match.start()].strip())
            relations.append(_RELATION_SIGNS.get(match.group(), match.group()))
            start = match.end()
    links.append(statement[start:].strip())
    # `≈ 22.6` after a relation is a rounded value too; `= ` before anything is a stray sign.
    while len(links) > 1 and not links[0]:
        links.pop(0)
        relations.pop(0)
    return Chain(tuple(links), tuple(relations))


# `[0.42, 0.33, 0.25] — flatter`: a remark set off by a dash. An em dash (or `--`) is never a
# minus sign; an en dash may be one (`x – 1`), so a remark after it takes two words or more.
_DASH = re.compile(r"(?<=\S)\s+(—|--|–)\s+(?=\S)")


def _without_dash_remark(statement: str) -> str:
    for dash in top_level(_DASH, statement):
        head, tail = statement[: dash.start()], statement[dash.end() :]
        if len(_prose_words(tail)) >= (2 if dash.group(1) == "–" else 1):
            return head
    return statement


def _without_prose_label(statement: str) -> str:
    """`T² dot products, 2 FLOPs each: 2T²d_k`: working said in words, then a colon and the
    formula, is the formula (when a colon is not a relation of the chain, as in formulas)."""
    colons = list(top_level(_LABEL_COLON, statement))
    if colons:  # the last colon outside brackets
        head, tail = statement[: colons[-1].start()], statement[colons[-1].end() :]
        if len(_prose_words(head)) >= 2 and tail.strip() and not _prose_words(tail):
            return tail.strip()
    return statement


_LABEL_COLON = re.compile(r":(?!=)")


def without_hedges(text: str) -> str:
    """`the answer is B`, `B, i think`, `B?`: the answer without the words around it that only
    say how sure the learner is, or label it."""
    text = _TRAILING_HEDGE.sub("", _HEDGE.sub("", text, count=1), count=1).strip()
    return text.rstrip("?").strip() if text.rstrip("?").strip() else text


def _without_comma_remark(statement: str) -> str:
    """`1, whatever d_k is`, `p_i(1 - p_i), like a sigmoid`: a remark in words after a comma
    (two words or more, so that `(B, heads)` stays a list) is dropped."""
    for comma in top_level(",", statement, from_end=True):
        head, tail = statement[: comma.start()].strip(), statement[comma.end() :]
        if head and len(_prose_words(tail)) >= 2:
            return head
        return statement
    return statement


def _prose_words(text: str) -> list[str]:
    words = re.findall(r"(?<![A-Za-z_\\])[A-Za-z]{2,}(?![A-Za-z_(])", text)
    # `W_Q's shape`: a possessive is a word of prose, whatever it names (no formula has one).
    words += re.findall(r"(?<!\S)[^\s'’]+['’]s(?![\w'’])", text)
    return [word for word in words if word.lower() not in _MATH_WORDS]


def _last_statement(text: str) -> str:
    parts = split_top_level(text, _IMPLICATION)
    nonempty = [part for part in parts if part.strip()]
    return nonempty[-1] if nonempty else text


# `d_k or sqrt(d_k)`: more than one answer offered at once (`709.8 or so` is a hedge). Each is
# graded, so a few at most.
MAX_OFFERED = 3
_OR = re.compile(r"\s+or\s+(?!so\b)", re.IGNORECASE)


def offered_answers(answer: str) -> list[str] | None:
    """The answers of `a or b`, split where `or` stands outside brackets; None when one answer
    is offered."""
    pieces = split_top_level(answer, _OR)
    # `3x, or maybe x^3`: the comma before a second thought belongs to neither answer.
    pieces = [piece.strip().removesuffix(",").strip() for piece in pieces]
    if len(pieces) > MAX_OFFERED:
        return None  # not an answer with a second thought but a list: left for the reader
    return pieces if len(pieces) > 1 and all(pieces) else None


def trailing_group(text: str) -> tuple[str, str] | None:
    """`8 (√64)` -> ("8", "√64"): the head and the inside of a bracket that ends the text and is
    set apart by a space (or follows a plain number); None when there is none."""
    text = text.rstrip()
    if not text.endswith(")"):
        return None
    i = matching_open(text, len(text) - 1, ROUND)
    if i is None:
        return None
    head = text[:i]
    if not head.strip():
        return None
    if head.endswith((" ", "\t")) or _PLAIN_NUMBER.fullmatch(head.strip()):
        return head.strip(), text[i + 1 : -1].strip()
    return None


_PLAIN_NUMBER = re.compile(r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?")


def is_plain_number(text: str) -> bool:
    return bool(_PLAIN_NUMBER.fullmatch(text.strip()))


def has_words(text: str, known: frozenset[str] = frozenset()) -> bool:
    """Whether `text` holds prose: a word of two or more letters that is not a known name."""
    return any(word not in known for word in _prose_words(text))


_MATH_WORDS = frozenset(
    {"sqrt", "exp", "log", "ln", "sin", "cos", "tan", "softmax", "max", "min", "abs", "pi"}
    | {"inf", "frac", "cdot", "times", "top", "var", "std", "np", "math"}
    | {"multiply", "multiplied", "divided", "over", "plus", "minus", "squared", "cubed"}
)

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "sixteen": "16", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty-four": "64", "hundred": "100", "half": "1/2", "a half": "1/2", "one half": "1/2",
}  # fmt: skip


# `a quarter`, `three quarters`, `one third`: a fraction said in words, a count of parts.
_PARTS = {
    "half": 2, "halves": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_SPOKEN_FRACTION = re.compile(r"(a|an|[a-z]+)[\s-]+([a-z]+?)s?", re.IGNORECASE)
# `ten FLOP per byte`, `sixteen dims`: a number word that starts an answer with a unit after it.
_LEADING_WORD = re.compile(r"([a-z]+)(?=\s+[^\W\d])", re.IGNORECASE)


def number_word(text: str) -> str:
    """`zero` -> `0`, `a quarter` -> `1/4`: a number written in words, else the text unchanged."""
    said = text.strip().lower()
    if said in NUMBER_WORDS:
        return NUMBER_WORDS[said]
    fraction = _SPOKEN_FRACTION.fullmatch(said) if len(said) < 40 else None
    if fraction is not None:
        count = "1" if fraction.group(1) in ("a", "an") else NUMBER_WORDS.get(fraction.group(1))
        part = _PARTS.get(fraction.group(2)) or _PARTS.get(fraction.group(2) + "s")
        if count is not None and count.isdigit() and part is not None:
            return f"{count}/{part}"
    return text


def leading_number_word(text: str) -> str:
    """`ten FLOP per byte` -> `10 FLOP per byte`: a number word before a unit, as digits."""
    stripped = text.lstrip()
    word = _LEADING_WORD.match(stripped)
    if word is None or not NUMBER_WORDS.get(word.group(1).lower(), "").isdigit():
        return text
    return NUMBER_WORDS[word.group(1).lower()] + stripped[word.end() :]
