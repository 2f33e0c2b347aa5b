"""The bank file format (`format_version: 1`) and a loaded question set."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pydantic import Field

from engine.bank.file_header import FileHeader
from engine.bank.lineage import successors_of
from engine.bank.siblings import sibling_map
from engine.cards.base import Item
from engine.cards.typed import Aliases


class BankHeader(FileHeader):
    """Everything in a bank file except its items, which are validated one by one by kind."""

    # Spellings shared by every item of the file, e.g. {d_k: [d, dk, "d_{k}"]}.
    symbols: Aliases = Field(default_factory=dict)
    items: list[object]


@dataclass(frozen=True)
class QuestionSet:
    """One set (e.g. "15") as loaded from one or more bank files."""

    name: str
    title: str
    items: tuple[Item, ...]

    def item(self, item_id: str) -> Item | None:
        return self._by_id.get(item_id)

    @cached_property
    def _by_id(self) -> dict[str, Item]:
        return {item.id: item for item in self.items}

    @property
    def ids(self) -> list[str]:
        return [item.id for item in self.items]

    @cached_property
    def siblings(self) -> dict[str, frozenset[str]]:
        """Item id -> the ids of its siblings (cards not shown in the same session)."""
        return sibling_map(self.items)

    @cached_property
    def successors(self) -> dict[str, tuple[str, ...]]:
        """Retired item id -> the items that took it over (and its review history)."""
        return successors_of(self.items)
