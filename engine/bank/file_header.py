"""What every YAML file of a set begins with: banks, derivation drills, timed and rapid drills.

`format_version`, the set's name, a title and an optional description, validated strictly
(unknown fields are errors, so a typo is reported rather than ignored).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

SetName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")]
Title = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class StrictModel(BaseModel):
    """A part of a file: no unknown fields, not changed after loading."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class FileHeader(StrictModel):
    format_version: Literal[1]
    set: SetName
    title: Title
    description: str | None = None

    @field_validator("set", mode="before")
    @classmethod
    def _set_as_text(cls, value: object) -> object:
        # `set: 15` is the natural way to write it; YAML reads it as a number.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value
