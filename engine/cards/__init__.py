"""Card kinds: each kind is a pydantic model that knows how to show itself and grade an answer.

A kind registers itself with `register_kind`; the bank loader and the session loop only use the
`Item` interface, so a later kind (cloze, numeric-with-random-inputs, code) is a new module here
plus one import in `engine/cards/registry.py`, with no change to the session.
"""

from engine.cards.base import Item, register_kind
from engine.cards.registry import KINDS, kind_names

__all__ = ["KINDS", "Item", "kind_names", "register_kind"]
