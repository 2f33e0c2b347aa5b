"""Multiple-choice cards, answered by the option's number or letter."""

from __future__ import annotations

import random
import re
import string
from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from engine.cards.base import Item, Text, register_kind
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
        option named another way (`the second`, `line 3`: see `named_choice`)."""
        pick = parse_choice(answer, len(self.options))
        if pick is None:
            pick = named_choice(answer, self.choices(seed))
        if pick is None:
            return Verdict(
                correct=False,
                valid=False,
                feedback=f"not an option: answer with 1-{len(self.options)} "
                f"or A-{LETTERS[len(self.options) - 1]}",
            )
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


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ORDINAL = re.compile(
    r"^\s*(?:the\s+)?(" + "|".join(_ORDINALS) + r"|[1-8](?:st|nd|rd|th))"
    r"(?:\s+(?:one|option|choice|answer))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def named_choice(text: str, shown: list[str]) -> int | None:
    """0-based index of the option `text` names in the `shown` order, other than by its number
    or letter: by its place in words (`the second`, `2nd one`), by its whole text, or by the
    label its text starts with (`Line 3` for "Line 3: the scores must be divided ..."), when
    exactly one option has it. None when it names no option or more than one."""
    ordinal = _ORDINAL.match(text)
    if ordinal:
        word = ordinal.group(1).lower()
        place = _ORDINALS.index(word) if word in _ORDINALS else int(word[0]) - 1
        return place if place < len(shown) else None
    typed = _plain(text)
    if not typed:
        return None
    for key in (_plain, _label):
        found = [i for i, option in enumerate(shown) if key(option) == typed]
        if len(found) == 1:
            return found[0]
    return None


def _plain(text: str) -> str:
    return " ".join(text.casefold().replace("’", "'").split()).strip(" .!")


def _label(option: str) -> str:
    """`Line 3` of "Line 3: the scores must be ..."; empty when the option has no label."""
    head, colon, _ = option.partition(":")
    return _plain(head) if colon and len(head.split()) <= 5 else ""
