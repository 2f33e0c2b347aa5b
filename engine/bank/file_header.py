"""What every YAML file of a set begins with: banks, derivation drills, timed and rapid drills.

`format_version`, the kind of file, the set's name, a title and an optional description,
validated strictly (unknown fields are errors, so a typo is reported rather than ignored).

`kind:` says what the file is (`bank`, `drills`, `timed-drill`, `rapid-drill`), so that lint
reads a file as what it is wherever it lies. It is optional: a file without it (every file
written before it existed) is read as what its place says, `quizzes/` banks and `drills/`
drills, exactly as before. docs/file-format.md describes the header for authors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

FORMAT_VERSION = 1
"""The one version of every file format (`format_version: 1`); a file of another is refused."""

SET_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
SetName = Annotated[str, StringConstraints(pattern=SET_NAME_PATTERN)]
Title = Annotated[str, StringConstraints(min_length=1, max_length=200)]
FileKind = Literal["bank", "drills", "timed-drill", "rapid-drill"]


def is_set_name(name: str) -> bool:
    """Whether `name` can name a set (what a file's `set:` may say): a plain name, never a path
    such as `..` or `/tmp`, so looking a set up never reads files outside the bank folders."""
    return re.fullmatch(SET_NAME_PATTERN, name) is not None


@dataclass(frozen=True)
class KindOfFile:
    """How messages name a kind of file, the top-level key its contents are under, and where
    attnquiz looks for files of that kind."""

    label: str
    section: str
    place: str


FILE_KINDS: dict[FileKind, KindOfFile] = {
    "bank": KindOfFile("a bank", "items", "quizzes/<set>.yaml or quizzes/<set>/"),
    "drills": KindOfFile("a drill file", "drills", "drills/<set>.yaml or drills/<set>/"),
    "timed-drill": KindOfFile("a timed drill file", "timed", "drills/<set>-timed.yaml"),
    "rapid-drill": KindOfFile("a rapid drill file", "rapid", "drills/<set>-rapid.yaml"),
}


class StrictModel(BaseModel):
    """A part of a file: no unknown fields, not changed after loading."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class FileHeader(StrictModel):
    format_version: Literal[1]  # FORMAT_VERSION
    # Checked against what the file is read as before the rest (see `yaml_source.check_kind`).
    kind: FileKind | None = None
    set: SetName
    title: Title
    description: str | None = None

    @field_validator("set", mode="before")
    @classmethod
    def _set_as_text(cls, value: object) -> object:
        # `set: 15` is the natural way to write it; YAML reads it as a number.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value
