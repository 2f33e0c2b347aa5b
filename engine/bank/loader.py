"""Load bank files into models, reporting every problem as `PATH:LINE: message`."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attention_ref.bounded_read import read_at_most
from engine.bank.giveaways import hint_giveaway, longest_option_warning
from engine.bank.lineage import lineage_problems
from engine.bank.model import BankHeader, QuestionSet
from engine.bank.set_files_merge import merge_set_files
from engine.bank.siblings import lone_groups
from engine.bank.validation_messages import (
    entry_label,
    unique_entries,
    validate_entry,
    validate_file,
)
from engine.bank.yaml_source import MAX_BANK_BYTES, YamlDocument, read_versioned
from engine.cards import KINDS, Item
from engine.cards.typed import ExpressionItem, TypedItem
from engine.checking.equivalence.domain import range_weakness
from engine.errors import BankError

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker


@dataclass
class LoadedFile:
    path: str
    header: BankHeader | None = None
    items: list[Item] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # What lint points out without refusing the bank (a hint that gives its answer away).
    warnings: list[str] = field(default_factory=list)


def load_bank_file(
    path: Path,
    shown_as: str | None = None,
    *,
    checker: Checker | None = None,
    set_name: str | None = None,
) -> LoadedFile:
    """Parse and validate one bank file.

    With a `checker`, every stated answer is also re-checked by it (lint); `set_name` is the
    name the file's place gives its set (`quizzes/15.yaml` is set 15), which its `set:` field
    must repeat.
    """
    if checker is None:
        try:
            raw = read_at_most(path, MAX_BANK_BYTES)
        except OSError:
            raw = None  # read again below, to report why
        if raw is not None:
            return _copy(_load_bytes(raw, shown_as or str(path), set_name))
    return _load(read_versioned(path, shown_as, kind="bank"), checker, set_name)


@functools.lru_cache(maxsize=8)
def _load_bytes(raw: bytes, shown: str, set_name: str | None) -> LoadedFile:
    """A bank file's contents loaded, remembered by the contents themselves (not by the file's
    name or time stamp, which can stay the same when the file changes): a process that opens
    the same set again (each command run in the tests, a session's stats) reads and validates
    it once. Items are frozen models; each caller gets its own lists (`_copy`)."""
    return _load(read_versioned(Path(shown), shown, kind="bank", raw=raw), None, set_name)


def _copy(loaded: LoadedFile) -> LoadedFile:
    return LoadedFile(
        path=loaded.path,
        header=loaded.header,
        items=list(loaded.items),
        problems=list(loaded.problems),
        warnings=list(loaded.warnings),
    )


def _load(
    read: tuple[YamlDocument, dict[str, Any] | None],
    checker: Checker | None,
    set_name: str | None,
) -> LoadedFile:
    doc, value = read
    result = LoadedFile(path=doc.path, problems=doc.problems)
    if value is None:
        return result
    result.header = validate_file(doc, value, BankHeader, "bank", set_name)
    if result.header is None and not isinstance(value.get("items"), list):
        return result
    shared_symbols = result.header.symbols if result.header else {}
    raw_items = value.get("items") or []
    for index, raw in unique_entries(doc, "items", raw_items):
        item = _load_item(doc, raw, index, shared_symbols)
        if item is None:
            continue
        if checker is not None:
            for problem in _deep_check(item, checker):
                doc.problem(item.line, f"item {item.id!r}: {problem}")
        result.items.append(item)
    if result.header and not raw_items:
        doc.problem(doc.line_of(("items",)), "the bank has no items")
    for line, problem in lineage_problems(result.items):
        doc.problem(line, problem)
    if checker is not None:
        result.warnings = _warnings(doc.path, result.items)
    return result


def _warnings(path: str, items: list[Item]) -> list[str]:
    """Lint's advice on a file's items: hints that give the answer away, ranges at a size where
    the random test is weak, lone sibling groups, and right options that are longest too often."""
    found = []
    for item in items:
        giveaway = hint_giveaway(item)
        if giveaway:
            found.append(f"{path}:{item.line}: warning: item {item.id!r}: {giveaway}")
        if isinstance(item, ExpressionItem):
            for name, bounds in item.ranges.items():
                if weak := range_weakness(name, bounds):
                    found.append(f"{path}:{item.line}: warning: item {item.id!r}: {weak}")
    lines = {item.id: item.line for item in items}
    for group, only in lone_groups(items).items():
        found.append(
            f"{path}:{lines[only]}: warning: item {only!r} is alone in sibling group {group!r}"
        )
    longest = longest_option_warning(items)
    if longest:
        found.append(f"{path}:1: warning: {longest}")
    return found


def _load_item(
    doc: YamlDocument, raw: Any, index: int, shared_symbols: dict[str, tuple[str, ...]]
) -> Item | None:
    loc = ("items", index)
    if not isinstance(raw, dict):
        doc.problem(doc.line_of(loc), "an item is a mapping with id, kind, prompt and an answer")
        return None
    label = entry_label("item", raw, index)
    kind = raw.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(sorted(KINDS))
        where = doc.line_of((*loc, "kind"))
        doc.problem(where, f"{label}: kind {kind!r} is not one of: {known}")
        return None
    data = dict(raw)
    if "symbols" in cls.model_fields and isinstance(data.get("symbols", {}), dict):
        data["symbols"] = {**shared_symbols, **(data.get("symbols") or {})}
    return validate_entry(doc, loc, data, cls, label)


def _deep_check(item: Item, checker: Checker) -> list[str]:
    try:
        if isinstance(item, TypedItem):  # re-checked by the checker (in its worker: a time limit)
            return checker.check_bank(item) + item.check_stated()
        return item.check_bank() + item.check_stated()
    except Exception as exc:  # an author's answer must never crash lint
        return [f"cannot check the stated answer: {exc}"]


def _retired_elsewhere(items: list[Item], where: dict[str, str]) -> list[str]:
    """A retired id that another file of the set still has as an item (within one file this
    is reported as the file loads)."""
    file_of = {item_id: place.rsplit(":", 1)[0] for item_id, place in where.items()}
    return [
        f"{where[item.id]}: item {item.id!r} replaces {old!r}, which is still an item "
        f"in {file_of[old]}"
        for item in items
        for old in item.replaces
        if old in file_of and file_of[old] != file_of[item.id]
    ]


def load_set(name: str, files: list[tuple[Path, str]]) -> QuestionSet:
    """Load every file of a set; raise BankError listing all problems if any file is invalid."""
    merged = merge_set_files(
        name,
        files,
        lambda path, shown: load_bank_file(path, shown, set_name=name),
        lambda loaded: loaded.items,
    )
    problems = merged.problems + _retired_elsewhere(merged.entries, merged.where)
    if problems:
        raise BankError(problems)
    return QuestionSet(
        name=name,
        title=merged.title,
        items=tuple(merged.entries),
    )
