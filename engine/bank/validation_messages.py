"""Pydantic's validation errors as an author reads them: `PATH:LINE: what is wrong`.

Shared by banks and every kind of drill file. A missing field names the field, an unknown one
suggests the closest known field of the model found at that place ("did you mean 'hint'?").
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.bank.file_header import FileHeader
from engine.bank.yaml_source import YamlDocument, check_set_name

File = TypeVar("File", bound=FileHeader)
Entry = TypeVar("Entry", bound=BaseModel)


def validate_file(
    doc: YamlDocument, value: object, model: type[File], label: str, set_name: str | None
) -> File | None:
    """The file's value as `model`, its `set:` checked against `set_name`; None once every
    validation problem is reported in `doc`."""
    try:
        parsed = model.model_validate(value)
    except ValidationError as exc:
        report_validation(doc, exc, (), label, model)
        return None
    check_set_name(doc, parsed.set, set_name)
    return parsed


def unique_entries(
    doc: YamlDocument, section: str, entries: list[Any]
) -> Iterator[tuple[int, Any]]:
    """The entries of a file's list of mappings with ids (a bank's `items`, a drill file's
    `drills`), each with its index; one whose id an earlier entry has is reported as a duplicate
    and left out. Duplicates are found on the raw ids, so that an invalid entry still claims
    its id."""
    first_line: dict[str, int] = {}
    for index, raw in enumerate(entries):
        raw_id = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(raw_id, str):
            line = doc.line_of((section, index))
            if raw_id in first_line:
                doc.problem(line, f"duplicate id {raw_id!r} (first at line {first_line[raw_id]})")
                continue
            first_line[raw_id] = line
        yield index, raw


def entry_label(noun: str, raw: dict[str, Any], index: int) -> str:
    """How messages name an entry: by its id, else by its place (`item 3`)."""
    return f"{noun} {raw['id']!r}" if isinstance(raw.get("id"), str) else f"{noun} {index + 1}"


def validate_entry(
    doc: YamlDocument,
    loc: tuple[str | int, ...],
    data: dict[str, Any],
    model: type[Entry],
    label: str,
) -> Entry | None:
    """An entry at `loc` as `model`, given the line it starts at (attnquiz's field, never the
    author's); None once its problems are reported in `doc`."""
    if "line" in data:
        doc.problem(doc.line_of((*loc, "line")), f"{label}: unknown field 'line'")
        return None
    try:
        return model.model_validate({**data, "line": doc.line_of(loc)})
    except ValidationError as exc:
        report_validation(doc, exc, loc, label, model)
        return None


def report_validation(
    doc: YamlDocument,
    exc: ValidationError,
    loc: tuple[str | int, ...],
    label: str,
    model: type[BaseModel],
) -> None:
    """One problem per error, at the line of the value (or of its mapping) in the file."""
    for error in exc.errors():
        inner = tuple(error["loc"])
        line = doc.line_of((*loc, *inner))
        name = ".".join(str(p) for p in inner) or "value"
        last = str(inner[-1]) if inner else name
        if error["type"] == "missing":
            what = "no answer" if last == "answer" else f"no {last!r}"
            where = f" ({name})" if len(inner) > 1 else ""
            doc.problem(line, f"{label} has {what}{where}")
        elif error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(last, fields_at(model, inner[:-1]), n=1)
            tip = f" (did you mean {close[0]!r}?)" if close else ""
            doc.problem(line, f"{label}: unknown field {name!r}{tip}")
        else:
            doc.problem(line, f"{label}: {name}: {error['msg'].removeprefix('Value error, ')}")


def fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names of the model nested at `loc` (list indices skipped)."""
    for part in loc:
        if not isinstance(part, str) or part not in model.model_fields:
            continue
        nested = _model_in(model.model_fields[part].annotation)
        if nested is None:
            break
        model = nested
    return [name for name in model.model_fields if name != "line"]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model inside an annotation such as `tuple[Step, ...]`, `list[Step]`, `Step | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        for argument in typing.get_args(annotation):
            found = _model_in(argument)
            if found is not None:
                return found
    return None
