"""Several files make one set (a bank folder, the built-in and the learner's own drills): their
entries are merged in file order, and an id may appear in only one of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar


class Entry(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def line(self) -> int: ...


class Header(Protocol):
    @property
    def title(self) -> str: ...


class LoadedFile(Protocol):
    @property
    def header(self) -> Header | None: ...
    @property
    def problems(self) -> list[str]: ...


E = TypeVar("E", bound=Entry)
L = TypeVar("L", bound=LoadedFile)


@dataclass(frozen=True)
class MergedSet(Generic[E]):
    title: str
    entries: list[E]
    where: dict[str, str]  # id -> "PATH:LINE"
    problems: list[str]


def merge_set_files(
    name: str,
    files: Iterable[tuple[Path, str]],
    load: Callable[[Path, str], L],
    entries: Callable[[L], Iterable[E]],
) -> MergedSet[E]:
    """The set's title (the first file's, else its name), its entries, where each entry is
    (`PATH:LINE`) and every problem."""
    problems: list[str] = []
    merged: list[E] = []
    first_at: dict[str, str] = {}
    title = name
    for path, shown in files:
        loaded = load(path, shown)
        problems.extend(loaded.problems)
        if loaded.header is not None and title == name:
            title = loaded.header.title
        for entry in entries(loaded):
            if entry.id in first_at:
                also = first_at[entry.id]
                problems.append(f"{shown}:{entry.line}: duplicate id {entry.id!r} (also in {also})")
                continue
            first_at[entry.id] = f"{shown}:{entry.line}"
            merged.append(entry)
    return MergedSet(title, merged, first_at, problems)
