"""Imports every card kind so that it registers itself; the one place to add a new kind."""

from engine.cards import (  # noqa: F401  (imported for registration)
    choice,
    cloze,
    computed,
    exercise,
    recall,
    typed,
    vector,
)
from engine.cards.base import Item, registered_kinds

KINDS: dict[str, type[Item]] = registered_kinds()


def kind_names() -> list[str]:
    return sorted(KINDS)
