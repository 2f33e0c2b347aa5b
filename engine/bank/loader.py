"""Load bank files into models, reporting every problem as `PATH:LINE: message`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.bank.model import FORMAT_VERSION, BankHeader, QuestionSet
from engine.bank.set_files_merge import merge_set_files
from engine.bank.validation_messages import report_validation, validate_file
from engine.bank.yaml_source import YamlDocument, read_versioned
from engine.cards import KINDS, Item
from engine.cards.typed import TypedItem
from engine.errors import BankError


@dataclass
class LoadedFile:
    path: str
    header: BankHeader | None = None
    items: list[Item] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_bank_file(
    path: Path, shown_as: str | None = None, *, deep: bool = False, set_name: str | None = None
) -> LoadedFile:
    """Parse and validate one bank file.

    `deep` also re-checks every stated answer (lint); `set_name` is the name the file's place
    gives its set (`quizzes/15.yaml` is set 15), which its `set:` field must repeat.
    """
    doc, value = read_versioned(
        path,
        shown_as,
        kind="a bank",
        contents="format_version, set, title and items",
        version=FORMAT_VERSION,
    )
    result = LoadedFile(path=doc.path, problems=doc.problems)
    if value is None:
        return result
    result.header = validate_file(doc, value, BankHeader, "bank", set_name)
    if result.header is None and not isinstance(value.get("items"), list):
        return result
    shared_symbols = result.header.symbols if result.header else {}
    raw_items = value.get("items") or []
    first_line: dict[str, int] = {}
    for index, raw in enumerate(raw_items):
        # Duplicates are found on the raw ids, so that an invalid item still claims its id.
        raw_id = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(raw_id, str):
            line = doc.line_of(("items", index))
            if raw_id in first_line:
                doc.problem(line, f"duplicate id {raw_id!r} (first at line {first_line[raw_id]})")
                continue
            first_line[raw_id] = line
        item = _load_item(doc, raw, index, shared_symbols)
        if item is None:
            continue
        if deep:
            for problem in _deep_check(item):
                doc.problem(item.line, f"item {item.id!r}: {problem}")
        result.items.append(item)
    if result.header and not raw_items:
        doc.problem(doc.line_of(("items",)), "the bank has no items")
    return result


def _load_item(
    doc: YamlDocument, raw: Any, index: int, shared_symbols: dict[str, tuple[str, ...]]
) -> Item | None:
    loc = ("items", index)
    line = doc.line_of(loc)
    if not isinstance(raw, dict):
        doc.problem(line, "an item is a mapping with id, kind, prompt and an answer")
        return None
    label = f"item {raw['id']!r}" if isinstance(raw.get("id"), str) else f"item {index + 1}"
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
    data["line"] = line
    if "line" in raw:
        doc.problem(doc.line_of((*loc, "line")), f"{label}: unknown field 'line'")
        return None
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        report_validation(doc, exc, loc, label, cls)
        return None


def _deep_check(item: Item) -> list[str]:
    try:
        if isinstance(item, TypedItem):  # re-checked in the bounded worker: a time limit
            from engine.checking.bounded import default_checker

            return default_checker().check_bank(item) + item.check_stated()
        return item.check_bank() + item.check_stated()
    except Exception as exc:  # an author's answer must never crash lint
        return [f"cannot check the stated answer: {exc}"]


def load_set(name: str, files: list[tuple[Path, str]]) -> QuestionSet:
    """Load every file of a set; raise BankError listing all problems if any file is invalid."""
    merged = merge_set_files(
        name,
        files,
        lambda path, shown: load_bank_file(path, shown, set_name=name),
        lambda loaded: loaded.items,
    )
    if merged.problems:
        raise BankError(merged.problems)
    return QuestionSet(
        name=name,
        title=merged.title,
        items=tuple(merged.entries),
        sources=tuple(s for _, s in files),
        source_of=merged.where,
    )
