"""What the timed and the rapid-fire drill files share: where a set's file is found, and how it
is read, up to what is the drill's own.

A clocked drill file is `drills/<set>-timed.yaml` or `drills/<set>-rapid.yaml` (the learner's own
in `<store>/drills` before the built-in one): the header every drill file has (`format_version:
1`, `kind:`, which older files leave out, `set`, `title`) and one section, validated by the
drill's model. `ClockedFile.read` reports every problem as `PATH:LINE: message`; what each drill
checks beyond its model (items in the bank, each template's algebra) is its `build` step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from engine.bank.file_header import FILE_KINDS, FileHeader, FileKind
from engine.bank.validation_messages import validate_file
from engine.bank.yaml_source import YamlDocument, read_versioned
from engine.errors import BankError

Model = TypeVar("Model", bound=FileHeader)
Drill = TypeVar("Drill")


@dataclass(frozen=True)
class ClockedFile(Generic[Model]):
    """One kind of clocked drill file (`timed-drill`, `rapid-drill`) and the model of its
    contents."""

    kind: FileKind
    model: type[Model]

    @property
    def name(self) -> str:
        """`timed` or `rapid`: the file's name ends in it, and its section is called so."""
        return self.kind.removesuffix("-drill")

    def find(self, set_name: str, store: Path) -> tuple[Path, str] | None:
        """`<store>/drills/<set>-<name>.yaml` (the learner's own) before the built-in one, and
        how messages show it."""
        from engine.drills.loader import special_drill_file

        return special_drill_file(set_name, store, self.name)

    def read(
        self,
        path: Path,
        shown: str,
        set_name: str | None,
        build: Callable[[YamlDocument, Model], Drill],
    ) -> tuple[Drill | None, list[str]]:
        """The drill `build` makes of the validated file (reporting in the document what else is
        wrong), and every problem of the file; no drill when the file cannot be read as its
        model says."""
        doc, value = read_versioned(path, shown, kind=self.kind)
        if value is None:
            return None, doc.problems
        label = FILE_KINDS[self.kind].label.removeprefix("a ")
        parsed = validate_file(doc, value, self.model, label, set_name)
        if parsed is None:
            return None, doc.problems
        return build(doc, parsed), doc.problems


def loaded(read: tuple[Drill | None, list[str]]) -> Drill:
    """The drill of a file `ClockedFile.read` found no problem in; else BankError listing them."""
    drill, problems = read
    if problems or drill is None:
        raise BankError(problems)
    return drill
