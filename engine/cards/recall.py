"""Self-rated recall cards: the learner recalls the back, looks, and rates themselves."""

from __future__ import annotations

from typing import ClassVar, Literal

from engine.cards.base import Item, Text, register_kind


@register_kind
class RecallItem(Item):
    kind_name: ClassVar[str] = "recall"
    self_rated: ClassVar[bool] = True

    kind: Literal["recall"]
    back: Text

    def answer_text(self) -> str:
        return self.back
