"""The bank file format (`format_version: 1`) and a loaded question set."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from engine.cards.base import Item
from engine.cards.typed import Aliases

FORMAT_VERSION = 1
SetName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")]


class BankHeader(BaseModel):
    """Everything in a bank file except its items, which are validated one by one by kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1]
    set: SetName
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    description: str | None = None
    # Spellings shared by every item of the file, e.g. {d_k: [d, dk, "d_{k}"]}.
    symbols: Aliases = Field(default_factory=dict)
    items: list[object]

    @field_validator("set", mode="before")
    @classmethod
    def _set_as_text(cls, value: object) -> object:
        # `set: 15` is the natural way to write it; YAML reads it as a number.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@dataclass(frozen=True)
class QuestionSet:
    """One set (e.g. "15") as loaded from one or more bank files."""

    name: str
    title: str
    items: tuple[Item, ...]
    sources: tuple[str, ...]
    source_of: dict[str, str] = field(default_factory=dict)

    def item(self, item_id: str) -> Item | None:
        return self._by_id.get(item_id)

    @cached_property
    def _by_id(self) -> dict[str, Item]:
        return {item.id: item for item in self.items}

    @property
    def ids(self) -> list[str]:
        return [item.id for item in self.items]
