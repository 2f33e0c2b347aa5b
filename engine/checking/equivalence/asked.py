"""Does the left side of an answer name what the question asks for?

`Var(q·k) = d_k` answers "What is the variance Var(q · k)?" well; `σ = d_k` names the standard
deviation instead, `∂L/∂K = ...` another gradient than the ∂L/∂Q asked for, and `d_k = 8`
restates a quantity the question gives (d_k = 64). The question's own text is the reference:
a left side is judged against the quantities it names and the ones it defines. A left side that
names nothing the question mentions, and nothing recognisably different (`FLOPs = ...`,
`Attention(Q, K, V) = ...`), is let through: a fair examiner reads it as a label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.errors import AnswerError

Judgement = Literal["asked", "other", "unknown"]

_FAMILIES = {
    "the variance": re.compile(r"^(?:var|variance|sigma\^\(?2\)?)(?:\(.*\))?$"),
    "the standard deviation": re.compile(
        r"^(?:std|sd|sigma|stddev|stdev|standarddeviation)(?:\(.*\))?$"
    ),
    "the mean": re.compile(r"^(?:e|mean|mu|expectation|expectedvalue|avg|average)(?:\(.*\))?$"),
}
_FAMILY_WORDS = {
    "the variance": re.compile(r"\bvariance\b|\bvar\s*\("),
    "the standard deviation": re.compile(r"\bstandard deviation\b|\bstd\b"),
    "the mean": re.compile(r"\bmean\b|\bexpectation\b|(?<![a-z])e\s*\["),
}
_DERIVATIVE = re.compile(r"(?<![a-z0-9_])d([a-z][a-z0-9_]*)/d([a-z][a-z0-9_]*)(?![a-z0-9_])")
_SHORT_GRADIENT = re.compile(r"^(?:d|grad_?|nabla_?|∇_?)([a-z])$")
_CALL = re.compile(r"^([a-z]+)\((.*)\)$")


@dataclass(frozen=True)
class Verdict:
    judgement: Judgement
    message: str = ""


_DOUBLE_BRACKET = re.compile(r"([(\[{])\s*\(([^()]*)\)\s*([)\]}])")


def judge_label(label: str, question: str) -> Verdict:
    """Whether `label`, the left side of an answer, names what `question` asks for."""
    spaced, bare = _canonical(label)
    if not bare:
        return Verdict("unknown")
    text_spaced, _ = _canonical(question)
    shown = label.strip()
    if _given(spaced, text_spaced):
        return Verdict("other", f"the left side `{shown}` is given in the question, not asked for")
    derivative = _derivative(bare)
    if derivative is not None:
        asked = [d for d in _derivatives(text_spaced) if not _given(d, text_spaced)]
        if derivative in asked:
            return Verdict("asked")
        if asked:
            return Verdict(
                "other", f"the left side `{shown}` is not the derivative the question asks for"
            )
        return Verdict("unknown")
    family = next(
        (name for name, rule in _FAMILIES.items() if rule.match(bare) and _one_call(bare)), None
    )
    if family is not None:
        asked_families = _asked_families(question)
        if asked_families and family not in asked_families:
            wanted = " or ".join(sorted(asked_families))
            return Verdict(
                "other", f"the left side `{shown}` is {family}; the question asks for {wanted}"
            )
        call = _CALL.match(bare)
        if call and asked_families:
            calls = _calls_of(call.group(1), text_spaced)
            if calls and bare not in calls:
                return Verdict(
                    "other", f"the left side `{shown}` is not the quantity the question asks for"
                )
        return Verdict("asked" if asked_families else "unknown")
    if re.search(rf"(?<![a-z0-9_]){re.escape(spaced)}(?![a-z0-9_])", text_spaced):
        return Verdict("asked")
    return Verdict("unknown")


def _canonical(text: str) -> tuple[str, str]:
    """A comparable form: ASCII, lower case, products and dots dropped; with single spaces
    between words (`spaced`) and with none (`bare`)."""
    from engine.checking.reading.big_operators import expand_big_operators
    from engine.checking.reading.typography import to_ascii

    try:
        plain = to_ascii(expand_big_operators(text))
    except AnswerError:
        plain = text
    while True:  # `E[(q*k)]` from a sum read as a dot product is E[q*k]
        plain, count = _DOUBLE_BRACKET.subn(r"\1\2\3", plain)
        if not count:
            break
    plain = plain.replace("∂", "d").replace("√", "sqrt").replace("\\", "").lower()
    plain = plain.replace("[", "(").replace("]", ")")
    plain = re.sub(r"(?<=[a-z0-9_)])\s*[*·.]\s*(?=[a-z(])", " ", plain)
    plain = re.sub(r"\^\((\w)\)", r"^\1", plain)
    plain = re.sub(r"(?<=[a-z])\s*(?:\^\s*t(?![a-z0-9_])|⊤)", " ", plain)  # q^T k, qᵀk: q·k
    plain = re.sub(r"\s+", " ", plain).strip()
    spaced = re.sub(r"\s*([^\w\s])\s*", r"\1", plain)
    return spaced, spaced.replace(" ", "")


def _given(label: str, text: str) -> bool:
    """Whether the question defines `label` (`d_k=64`, `G=dl/ds`, `the gradient dl/ds`)."""
    escaped = re.escape(label)
    return bool(
        re.search(rf"(?<![a-z0-9_]){escaped}=(?!=)", text)
        or re.search(rf"=(?:[a-z]=)?{escaped}(?![a-z0-9_(])", text)
        or re.search(rf"(?:for|writes?) the gradient {escaped}(?![a-z0-9_])", text)
    )


def _derivative(bare: str) -> str | None:
    match = _DERIVATIVE.fullmatch(bare)
    if match:
        return f"d{match.group(1)}/d{match.group(2)}"
    short = _SHORT_GRADIENT.match(bare)
    if short:
        return f"dl/d{short.group(1)}"
    return None


def _derivatives(text_spaced: str) -> list[str]:
    return [f"d{m.group(1)}/d{m.group(2)}" for m in _DERIVATIVE.finditer(text_spaced)]


def _asked_families(question: str) -> set[str]:
    lowered = " ".join(question.lower().split())
    asking = " ".join(re.findall(r"[^.?!]*\?", lowered)) or lowered
    return {name for name, words in _FAMILY_WORDS.items() if words.search(asking)}


def _calls_of(function: str, text: str) -> set[str]:
    calls = set()
    for match in re.finditer(rf"(?<![a-z]){re.escape(function)}\(", text):
        depth = 0
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                calls.add(text[match.start() : end + 1].replace(" ", ""))
                break
    return calls


def _one_call(bare: str) -> bool:
    """Whether `bare` is a name, or one call whose bracket closes at the very end."""
    opened = bare.find("(")
    if opened < 0:
        return True
    depth = 0
    for i in range(opened, len(bare)):
        depth += {"(": 1, ")": -1}.get(bare[i], 0)
        if depth == 0:
            return i == len(bare) - 1
    return False


# An answer, then one plain word: `i keys`, `6 GiB total`.
_TRAILING_WORD = re.compile(r"(.*?[\w)\]%])\s+([A-Za-z]{2,})\.?\s*", re.DOTALL)
# Words that qualify an answer without changing it: `6 GiB in total`, `16 MiB each`.
_FILLER_WORDS = frozenset({"total", "in", "each", "per", "at", "of", "all", "the", "overall"})
# Nouns that only say an answer counts numbers: `T(T + d_v) floats`.
_FILLER_WORDS |= {"numbers", "floats", "values", "entries", "elements", "scalars"}
# Nouns that only say an answer counts a vector's components: `16 dims` for a head size.
_FILLER_WORDS |= {"dims", "dim", "dimensions", "components", "features"}
# An answer after a word: `weight 0` to "what weight does it get".
_LEADING_WORD = re.compile(r"\s*([A-Za-z]{3,})\s+(\S.*?)\s*", re.DOTALL)
# Words that change what follows them: never dropped in front of an answer.
_CHANGING_WORDS = frozenset(
    {"not", "never", "less", "more", "than", "except", "without", "nor", "neither", "minus"}
    | {"above", "below", "over", "under", "plus", "times", "half", "twice", "double", "square"}
    | {"negative", "inverse", "reciprocal", "root", "log", "exp", "power", "percent"}
)
MAX_TRAILING_WORDS = 4


def without_counted_noun(answer: str, question: str) -> str:
    """`answer` without trailing words that only say what it counts, in the question's own
    words or a few fillers: `i keys` to "how many keys", `40 dims` to "which head dimension",
    `16 MiB per head` to "one head's score matrix", `2.1 seconds at best` to "at best, how many
    seconds". A unit ends the words (it is converted, or wrong); any other word keeps them all.
    Words of the question in front of the answer restate what is asked (`weight 0`)."""
    from engine.checking.equivalence.units import known_unit

    asked = set(re.findall(r"[a-z]{3,}", question.lower()))
    shorter = _without_trailing_words(answer, asked, known_unit)
    if shorter != answer:
        return shorter
    dropped = 0
    while dropped < MAX_TRAILING_WORDS:
        match = _LEADING_WORD.fullmatch(shorter)
        if match is None or not _restates(match.group(1).lower(), asked):
            break
        shorter, dropped = match.group(2), dropped + 1
    return shorter if dropped else answer


def _restates(word: str, asked: set[str]) -> bool:
    """Whether `word` is one of the question's own words (or a filler), not one that changes
    what follows it."""
    from engine.checking.reading.safe_ast import FUNCTION_NAMES

    if word in _CHANGING_WORDS or word in FUNCTION_NAMES:
        return False
    stems = {word, word.removesuffix("s"), word.removesuffix("es")}
    return word in _FILLER_WORDS or any(
        len(s) >= 3 and any(w.startswith(s) for w in asked) for s in stems
    )


def _without_trailing_words(answer: str, asked: set[str], known_unit: Callable[[str], bool]) -> str:
    text, dropped = answer, 0
    while dropped < MAX_TRAILING_WORDS:
        match = _TRAILING_WORD.fullmatch(text)
        if match is None:
            break
        word = match.group(2).lower()
        if word not in _FILLER_WORDS:  # `at` and `in` are units to pint, not here
            if known_unit(match.group(2)):
                break
            stems = {word, word.removesuffix("s"), word.removesuffix("es")}
            if not any(len(s) >= 3 and any(w.startswith(s) for w in asked) for s in stems):
                return answer
        text, dropped = match.group(1), dropped + 1
    return text
