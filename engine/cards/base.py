"""The interface every card kind implements, and the registry of kinds."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from engine.cards.claims import StatedValue
from engine.verdict import Verdict

ItemId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]
Tag = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]

_KINDS: dict[str, type[Item]] = {}


class Item(BaseModel):
    """Fields common to every card, and the grading interface.

    Subclasses set `kind` (the YAML `kind:` value) and `self_rated`, and implement `grade`
    (typed kinds) or leave it to the learner's own rating (self-rated kinds).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind_name: ClassVar[str] = ""
    self_rated: ClassVar[bool] = False

    id: ItemId
    kind: str
    prompt: Text
    tags: tuple[Tag, ...] = ()
    hint: Text | None = None
    explanation: Text | None = None
    # Numbers quoted in the prompt or explanation, each with the computation that gives it.
    stated: tuple[StatedValue, ...] = ()
    # Sibling groups: cards that would give each other away, or ask one fact from two sides,
    # share a group name, and a review session shows at most one card of a group (as Anki
    # buries the siblings of a note). See engine/bank/siblings.py.
    siblings: tuple[Tag, ...] = ()
    # Ids of retired items this item takes over: their review history carries over to it
    # (a card split in three names the old id in each of the three). See engine/bank/lineage.py.
    replaces: tuple[ItemId, ...] = ()
    # Line of the item in its bank, for messages; set by the loader, never written by authors.
    line: int = Field(default=0, exclude=True)

    def grade(self, answer: str) -> Verdict:  # pragma: no cover - overridden by typed kinds
        raise NotImplementedError(f"{self.kind} cards are rated by the learner, not graded")

    def hint_steps(self) -> tuple[str, ...]:
        """The hints in the order they are given, gentlest first."""
        return (self.hint,) if self.hint else ()

    def hint_after(self, given: int) -> str | None:
        """The hint to show when `given` hints were shown already (the last one again once all
        are out); None when the card has none."""
        steps = self.hint_steps()
        return steps[min(given, len(steps) - 1)] if steps else None

    def answer_text(self) -> str:
        """The correct answer, as it is shown to the learner after answering."""
        raise NotImplementedError

    def at_seed(self, seed: int) -> Item:
        """This card as shown at review number `seed`: kinds that draw fresh inputs per review
        (so the learner practises the computation, not a remembered number) return a copy with
        those inputs; the same seed always gives the same card, so a review can be replayed."""
        return self

    def choices(self, seed: int) -> list[str] | None:
        """Options in display order for multiple-choice kinds; None for other kinds."""
        return None

    def check_bank(self) -> list[str]:
        """Author-facing problems beyond the schema (e.g. an answer that does not parse)."""
        return []

    def check_stated(self) -> list[str]:
        """Every number the item quotes, recomputed: what was typed and what the kernel gives."""
        return [p for claim in self.stated if (p := claim.problem()) is not None]


def register_kind(cls: type[Item]) -> type[Item]:
    """Class decorator: make a kind available to banks under `cls.kind_name`."""
    if not cls.kind_name:
        raise ValueError(f"{cls.__name__} has no kind_name")
    if cls.kind_name in _KINDS:
        raise ValueError(f"card kind {cls.kind_name!r} registered twice")
    _KINDS[cls.kind_name] = cls
    return cls


def registered_kinds() -> dict[str, type[Item]]:
    return dict(_KINDS)
