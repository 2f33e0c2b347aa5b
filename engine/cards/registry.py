"""Imports every card kind so that it registers itself; the one place to add a new kind."""

# Each kind module registers its kind when it loads (imported here for that alone). The
# modules themselves, not the `engine.cards` package (which re-exports this registry).
import engine.cards.choice as choice  # noqa: F401
import engine.cards.cloze as cloze  # noqa: F401
import engine.cards.computed as computed  # noqa: F401
import engine.cards.exercise as exercise  # noqa: F401
import engine.cards.recall as recall  # noqa: F401
import engine.cards.typed as typed  # noqa: F401
import engine.cards.vector as vector  # noqa: F401
from engine.cards.base import Item, registered_kinds

KINDS: dict[str, type[Item]] = registered_kinds()


def kind_names() -> list[str]:
    return sorted(KINDS)
