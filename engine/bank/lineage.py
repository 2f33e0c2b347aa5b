"""Retired item ids and their successors, so that no review history is lost when a bank changes.

When a card is split into atomic cards or merged into a better one, its id retires and each
successor names it: `replaces: [old-id]`. A learner who reviewed the old card keeps that
memory: a successor with no history of its own starts from the old card's schedule instead of
as a new card (engine/store/retired.py applies this to the store). The mapping lives on the
successors, so an item that later retires a successor lists that item's `replaces` too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the bank loads without the scheduler
    from engine.schedule import CardState


class Successor(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def replaces(self) -> tuple[str, ...]: ...


def successors_of(items: Iterable[Successor]) -> dict[str, tuple[str, ...]]:
    """Every retired id -> the items that replace it, in bank order."""
    found: dict[str, list[str]] = {}
    for item in items:
        for old in item.replaces:
            found.setdefault(old, []).append(item.id)
    return {old: tuple(new) for old, new in found.items()}


def lineage_problems(items: Iterable[Successor]) -> list[tuple[int, str]]:
    """(line, message) for every `replaces` that cannot be right: a retired id that is still
    an item (it would have two histories), or an item that replaces itself."""
    items = list(items)
    live = {item.id for item in items}
    problems = []
    for item in items:
        for old in item.replaces:
            if old == item.id:
                problems.append((item.line, f"item {item.id!r} replaces itself"))
            elif old in live:
                problems.append(
                    (
                        item.line,
                        f"item {item.id!r} replaces {old!r}, which is still an item: "
                        "retire it (delete it) or drop it from `replaces`",
                    )
                )
    return problems


def inheritance(
    retired: Mapping[str, CardState],
    successors: Mapping[str, tuple[str, ...]],
    has_card: Iterable[str],
) -> dict[str, str]:
    """Which retired card each successor takes its schedule from: successor -> retired id.

    `retired` holds the stored cards of retired ids; a successor that already has a card of its
    own (`has_card`) keeps it. When several retired cards lead to one successor (a merge), it
    takes the weakest memory, the lowest stability, and then the one due first: the merged
    card then comes back no later than the old card that needed it soonest.
    """
    own = set(has_card)
    sources: dict[str, list[str]] = {}
    for old, news in successors.items():
        if old not in retired:
            continue
        for new in news:
            if new not in own:
                sources.setdefault(new, []).append(old)

    def weakness(old: str) -> tuple[float, float, str]:
        card = retired[old]
        stability = card.stability if card.stability is not None else 0.0
        due = card.due.timestamp() if card.due is not None else 0.0
        return stability, due, old

    return {new: min(olds, key=weakness) for new, olds in sources.items()}
