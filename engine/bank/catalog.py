"""Find question sets: the built-in banks, then the user's own under `<store>/quizzes`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.bank.file_header import is_set_name
from engine.bank.loader import load_set
from engine.bank.model import QuestionSet
from engine.errors import BankError, UsageError
from engine.paths import builtin_dir

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class BankRoot:
    path: Path
    label: str  # how paths under it are shown, e.g. "quizzes" for the built-in banks


def roots_of(folder: str, store: Path) -> list[BankRoot]:
    """Where the files of `folder` (`quizzes` or `drills`) are looked for: the built-in ones,
    then the learner's own under `<store>/<folder>`."""
    return [BankRoot(builtin_dir(folder), folder), BankRoot(store / folder, str(store / folder))]


def bank_roots(store: Path) -> list[BankRoot]:
    return roots_of("quizzes", store)


def set_files(name: str, roots: list[BankRoot]) -> list[tuple[Path, str]]:
    """Every bank file of set `name`: `<root>/<name>.yaml` or the YAML files in `<root>/<name>/`.

    A user's set with a built-in name adds items to the built-in set (ids must stay unique).
    A name that is no set name (`..`, `/tmp`, a path) has no files.
    """
    found: list[tuple[Path, str]] = []
    if not is_set_name(name):
        return found
    for root in roots:
        for suffix in SUFFIXES:
            candidate = root.path / f"{name}{suffix}"
            if candidate.is_file():
                found.append((candidate, f"{root.label}/{candidate.name}"))
            elif _unreadable(candidate):
                raise BankError([not_a_file(candidate)])
        folder = root.path / name
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.suffix in SUFFIXES and path.is_file():
                    found.append((path, f"{root.label}/{name}/{path.name}"))
                elif path.suffix in SUFFIXES and _unreadable(path):
                    raise BankError([not_a_file(path)])
    return found


def _unreadable(path: Path) -> bool:
    """A file of the set's by its name that is no regular file nor folder: a link to nothing,
    a named pipe, a device. Leaving it out would drop the author's items without a word."""
    return path.is_symlink() or (path.exists() and not path.is_dir())


def not_a_file(path: Path) -> str:
    """Why a bank's or a drill's path is not read, as `PATH:1: ...`: a link to nothing, or a
    named pipe or a device (reading it could block or never end)."""
    if path.is_symlink() and not path.exists():
        return (
            f"{path}:1: a symbolic link to nothing ({os.readlink(path)}): "
            "restore its target or remove the link"
        )
    return f"{path}:1: not a regular file or folder"


def available_sets(roots: list[BankRoot]) -> list[str]:
    names: set[str] = set()
    for root in roots:
        if not root.path.is_dir():
            continue
        for path in root.path.iterdir():
            if path.is_file() and path.suffix in SUFFIXES:
                names.add(path.stem)
            elif path.is_dir() and any(p.suffix in SUFFIXES for p in path.iterdir()):
                names.add(path.name)

    def numeric(n: str) -> bool:
        return n.isascii() and n.isdigit()

    return sorted(names, key=lambda n: (not numeric(n), int(n) if numeric(n) else 0, n))


def open_set(name: str, store: Path) -> QuestionSet:
    roots = bank_roots(store)
    files = set_files(name, roots)
    if not files:
        known = ", ".join(available_sets(roots)) or "none"
        raise UsageError(f"no question set {name!r} (sets available: {known})")
    return load_set(name, files)
