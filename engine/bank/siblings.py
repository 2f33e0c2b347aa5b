"""Sibling groups: related cards are not shown in the same review session.

Two cards are siblings when they share a group name in their `siblings:` field: one would give
the other away (a card that quotes the weights another asks for) or both ask one fact from two
sides. As Anki buries the siblings of a note, a session keeps the first card of a group it
would show and leaves the others for another day; they stay due and lose nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol


class Grouped(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def siblings(self) -> tuple[str, ...]: ...


def sibling_map(items: Iterable[Grouped]) -> dict[str, frozenset[str]]:
    """For every item in a sibling group, the ids of the other items of its groups."""
    members: dict[str, set[str]] = {}
    for item in items:
        for group in item.siblings:
            members.setdefault(group, set()).add(item.id)
    related: dict[str, set[str]] = {}
    for ids in members.values():
        for item_id in ids:
            related.setdefault(item_id, set()).update(ids - {item_id})
    return {item_id: frozenset(others) for item_id, others in related.items() if others}


def lone_groups(items: Iterable[Grouped]) -> dict[str, str]:
    """Groups with a single member (a typo in a group name, most often): group -> its item."""
    members: dict[str, list[str]] = {}
    for item in items:
        for group in item.siblings:
            members.setdefault(group, []).append(item.id)
    return {group: ids[0] for group, ids in members.items() if len(ids) == 1}


def bury_siblings(
    due: Sequence[str], new: Sequence[str], siblings: Mapping[str, frozenset[str]]
) -> tuple[list[str], list[str]]:
    """The due and new cards of a session with siblings buried.

    Cards are taken in order, due ones first (a review that is due matters more than a card
    not yet seen); a card whose sibling was already taken is left out. Burying happens before
    the daily allowance of new cards is counted, so a buried new card does not use it up.
    """
    taken: set[str] = set()
    blocked: set[str] = set()

    def keep(item_id: str) -> bool:
        if item_id in blocked or item_id in taken:
            return False
        taken.add(item_id)
        blocked.update(siblings.get(item_id, ()))
        return True

    kept_due = [i for i in due if keep(i)]
    kept_new = [i for i in new if keep(i)]
    return kept_due, kept_new
