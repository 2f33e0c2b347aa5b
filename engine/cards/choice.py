"""Multiple-choice cards, answered by the option's number or letter."""

from __future__ import annotations

import random
import re
import string
import unicodedata
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from engine.cards.base import Item, Text, register_kind
from engine.checking.reading.statement import offered_answers, without_hedges
from engine.checking.reading.typography import without_markup
from engine.verdict import Verdict

LETTERS = string.ascii_uppercase


@register_kind
class ChoiceItem(Item):
    kind_name: ClassVar[str] = "choice"

    kind: Literal["choice"]
    options: Annotated[tuple[Text, ...], Field(min_length=2, max_length=8)]
    answer: Annotated[int, Field(ge=1, description="1-based number of the correct option")]
    # Shuffling stops a learner from remembering "it was the second one"; the order is seeded per
    # review so that a replayed review shows the same order.
    shuffle: bool = True

    @model_validator(mode="after")
    def _answer_in_range(self) -> ChoiceItem:
        if self.answer > len(self.options):
            raise ValueError(f"answer {self.answer} is not one of the {len(self.options)} options")
        if len(set(self.options)) != len(self.options):
            raise ValueError("two options have the same text")
        return self

    def answer_text(self) -> str:
        return self.options[self.answer - 1]

    def order(self, seed: int) -> list[int]:
        """Indices into `options` in display order."""
        idx = list(range(len(self.options)))
        if self.shuffle:
            random.Random(f"{self.id}:{seed}").shuffle(idx)
        return idx

    def choices(self, seed: int) -> list[str]:
        return [self.options[i] for i in self.order(seed)]

    def grade_choice(self, answer: str, seed: int) -> Verdict:
        """Grade a typed option number (`2`) or letter (`b`) against the shown order, or the
        option named another way (`the second`, `line 3`: see `named_choice`). Offering two
        options at once (`b or c`) is a guess, and wrong."""
        shown = self.choices(seed)
        whole = read_choice(answer, shown)  # an option's own text may hold an `or`
        pieces = [answer] if whole is not None else offered_answers(without_markup(answer))
        picks = [whole] if whole is not None else [read_choice(p, shown) for p in pieces or []]
        named = {pick for pick in picks if pick is not None}
        if not named:
            return Verdict(
                correct=False,
                valid=False,
                feedback=f"not an option: answer with 1-{len(self.options)} "
                f"or A-{LETTERS[len(self.options) - 1]}",
            )
        if len(named) > 1 or None in picks:
            offered = " or ".join(LETTERS[pick] for pick in sorted(named))
            return Verdict(
                correct=False,
                interpreted_as=offered,
                feedback=f"give one answer; the answer is: {self.answer_text()}",
            )
        pick = named.pop()
        chosen = self.order(seed)[pick]
        correct = chosen == self.answer - 1
        return Verdict(
            correct=correct,
            interpreted_as=f"{LETTERS[pick]}. {self.options[chosen]}",
            feedback="" if correct else f"the answer is: {self.answer_text()}",
            score=1.0 if correct else 0.0,
        )

    def grade(self, answer: str) -> Verdict:
        # Outside a session (e.g. `attnquiz check`) the options are numbered in bank order.
        return self.grade_choice(answer, seed=-1) if not self.shuffle else self._unshuffled(answer)

    def _unshuffled(self, answer: str) -> Verdict:
        return self.model_copy(update={"shuffle": False}).grade_choice(answer, seed=-1)


# `option 2`, `choice b`, `answer: b`: the option named with the word the question uses for it.
_NAMED_AS_OPTION = re.compile(r"^\s*(?:option|choice|answer)\s*[:#]?\s*(?=\S)", re.IGNORECASE)


def parse_choice(text: str, n_options: int) -> int | None:
    """0-based option index from `2`, `b`, `B`, `b)`, `(b)` or `option 2`; None when it names
    no option."""
    t = _NAMED_AS_OPTION.sub("", text, count=1).strip().strip("().").strip()
    # A few digits at most: int() of thousands of digits is slow, and refused past 4300.
    if t.isascii() and t.isdigit() and len(t) <= 3 and 1 <= int(t) <= n_options:
        return int(t) - 1
    if len(t) == 1 and t.upper() in LETTERS[:n_options]:
        return LETTERS.index(t.upper())
    return None


# `B) Line 3: ...`, `(2) Lines 3 and 4`, `c. All zeros`: an option's letter or number, then words.
_MARKED = re.compile(r"^\s*\(?([A-Za-z]|\d{1,2})\s*[).:]\s+(?=\S)(.*)$", re.DOTALL)
# `line 3 - should divide by sqrt(d_k)`: an option's label, then a remark.
_REMARK_AFTER_LABEL = re.compile(r"\s*(?::|,|\s[-–—]\s)\s*")


def read_choice(text: str, shown: list[str]) -> int | None:
    """0-based index, in the `shown` order, of the one option `text` names: by its number or
    letter (`parse_choice`), wrapped in markdown or hedges (`**B**`, `the answer is B`), by its
    words (`named_choice`), or by its letter followed by its words (`B) Line 3: ...`), which
    must not name another option. None when it names no option, or more than one."""
    text = without_hedges(without_markup(text))
    pick = parse_choice(text, len(shown))
    if pick is not None:
        return pick
    pick = named_choice(text, shown)
    if pick is not None:
        return pick
    marked = _MARKED.match(text)
    if marked:
        pick = parse_choice(marked.group(1), len(shown))
        if pick is not None:
            words = _named_by_words(marked.group(2), shown)
            return pick if words in (None, pick) else None
    return _named_by_words(text, shown)


def _named_by_words(text: str, shown: list[str]) -> int | None:
    """The option `text` names by its words (`named_choice`), or by its label followed by a
    remark (`line 3 - should divide by sqrt(d_k)`)."""
    pick = named_choice(text, shown)
    if pick is not None:
        return pick
    head = _REMARK_AFTER_LABEL.split(text, maxsplit=1)[0]
    return named_choice(head, shown) if head != text else None


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ORDINAL = re.compile(
    r"^\s*(?:the\s+)?(" + "|".join(_ORDINALS) + r"|[1-8](?:st|nd|rd|th))"
    r"(?:\s+(?:one|option|choice|answer))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def named_choice(text: str, shown: list[str]) -> int | None:
    """0-based index of the option `text` names in the `shown` order, other than by its number
    or letter: by its place in words (`the second`, `2nd one`), by its whole text (the case,
    spaces and look-alike dashes aside; an option `M = ...` also by its right side; a formula
    also with its factors in another order, `O(d T²)` for `O(T² d)`), or by the label its
    text starts with (`Line 3` for "Line 3: the scores must be divided ..."), when exactly one
    option has it. None when it names no option or more than one."""
    ordinal = _ORDINAL.match(text)
    if ordinal:
        word = ordinal.group(1).lower()
        place = _ORDINALS.index(word) if word in _ORDINALS else int(word[0]) - 1
        return place if place < len(shown) else None
    typed = _plain(text)
    if not typed:
        return None
    said = {typed, _right_side(text)} - {""}
    for key in (_plain, _right_side, _label):
        found = [i for i, option in enumerate(shown) if key(option) in said]
        if len(found) == 1:
            return found[0]
    formula = _formula(text)
    if formula is not None:
        found = [i for i, option in enumerate(shown) if _formula(option) == formula]
        if len(found) == 1:
            return found[0]
    return None


# Dashes and quotes that look alike; `&` is `and`.
_LOOK_ALIKES = str.maketrans({"’": "'", "‘": "'", "–": "-", "—": "-", "−": "-", "‐": "-"})


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES).replace("&", " and ")
    return " ".join(text.casefold().split()).strip(" .!")


def _label(option: str) -> str:
    """`Line 3` of "Line 3: the scores must be ..."; empty when the option has no label."""
    head, colon, _ = option.partition(":")
    return _plain(head) if colon and len(head.split()) <= 5 else ""


# `M = np.where(keep, 0, -np.inf)`: an option that names what it defines.
_DEFINITION = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)\s*(?=\S)")


def _right_side(text: str) -> str:
    """`np.where(keep, 0, -np.inf)` of "M = np.where(keep, 0, -np.inf)"; empty without one."""
    return _plain(_DEFINITION.sub("", text, count=1)) if _DEFINITION.match(text) else ""


# `O(T² d)`, `O(n^2)`: a name applied to a product of powers of letters and small numbers.
_APPLIED = re.compile(r"^\s*([A-Za-z])\s*\((.{1,60})\)\s*$")
_FACTOR = re.compile(r"([A-Za-z](?:_[A-Za-z0-9]+)?|\d{1,3})(?:\s*(?:\^|\*\*)\s*\(?(\d)\)?)?")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def _formula(text: str) -> tuple[str, tuple[tuple[str, int], ...]] | None:
    """`O(T² d)`, `O(d·T^2)` and `O(T*T*d)` as one key: the name and the powers of its factors;
    None when `text` is not a name applied to such a product."""
    applied = _APPLIED.match(text)
    if applied is None:
        return None
    inside = re.sub(r"([⁰¹²³⁴⁵⁶⁷⁸⁹])", r"^\1", applied.group(2)).translate(_SUPERSCRIPT_DIGITS)
    powers: dict[str, int] = {}
    at = 0
    for separator in re.finditer(r"\s*(?:[*·⋅×]|\s)\s*|$", inside):
        piece = inside[at : separator.start()]
        at = separator.end()
        if not piece:
            continue
        factor = _FACTOR.fullmatch(piece)
        if factor is None:
            return None
        powers[factor.group(1)] = powers.get(factor.group(1), 0) + int(factor.group(2) or 1)
    return (applied.group(1), tuple(sorted(powers.items()))) if powers else None
