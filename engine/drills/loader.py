"""Read drill files into `Drill` models, reporting every problem as `PATH:LINE: message`.

Drills of a set come from `drills/<set>.yaml` (or `drills/<set>/*.yaml`) and from the user's own
`<store>/drills`, found the same way as question banks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.bank.catalog import SUFFIXES, BankRoot, available_sets, roots_of, set_files
from engine.bank.file_header import is_set_name
from engine.bank.set_files_merge import merge_set_files
from engine.bank.validation_messages import (
    entry_label,
    unique_entries,
    validate_entry,
    validate_file,
)
from engine.bank.yaml_source import YamlDocument, read_versioned
from engine.drills.model import Drill, DrillFile
from engine.errors import BankError, UsageError

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker

# Files `<set>-timed.yaml` and `<set>-rapid.yaml` hold other kinds of drills, not derivations.
SPECIAL_SUFFIXES = ("-timed", "-rapid")


@dataclass
class LoadedDrills:
    path: str
    header: DrillFile | None = None
    drills: list[Drill] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DrillSet:
    """The derivation drills of one set, from one or more files."""

    name: str
    title: str
    drills: tuple[Drill, ...]

    def drill(self, drill_id: str) -> Drill | None:
        return next((d for d in self.drills if d.id == drill_id), None)


def load_drill_file(
    path: Path,
    shown_as: str | None = None,
    *,
    checker: Checker | None = None,
    set_name: str | None = None,
) -> LoadedDrills:
    """Parse and validate one drill file; with a `checker`, also re-check every drill's
    expected chain by it (lint)."""
    doc, value = read_versioned(path, shown_as, kind="drills")
    result = LoadedDrills(path=doc.path, problems=doc.problems)
    if value is None:
        return result
    result.header = validate_file(doc, value, DrillFile, "drill file", set_name)
    raw_drills = value.get("drills")
    if not isinstance(raw_drills, list):
        return result
    for index, raw in unique_entries(doc, "drills", raw_drills):
        drill = _load_drill(doc, raw, index)
        if drill is None:
            continue
        for where, problem in shape_problems(drill):
            doc.problem(doc.line_of(("drills", index, *where)), f"drill {drill.id!r}: {problem}")
        if checker is not None:
            from engine.drills.chain import chain_problems

            for where, problem in chain_problems(drill, checker):
                doc.problem(
                    doc.line_of(("drills", index, *where)), f"drill {drill.id!r}: {problem}"
                )
        result.drills.append(drill)
    if result.header and not raw_drills:
        doc.problem(doc.line_of(("drills",)), "the file has no drills")
    return result


def _load_drill(doc: YamlDocument, raw: Any, index: int) -> Drill | None:
    loc = ("drills", index)
    if not isinstance(raw, dict):
        doc.problem(doc.line_of(loc), "a drill is a mapping with id, title, goal, steps and target")
        return None
    return validate_entry(doc, loc, raw, Drill, entry_label("drill", raw, index))


def shape_problems(drill: Drill) -> list[tuple[tuple[str | int, ...], str]]:
    """Problems with how the steps fit together, found without running the checker."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for number, step in enumerate(drill.steps):
        where: tuple[str | int, ...] = ("steps", number)
        if step.check == "follows":
            if number == 0 and drill.start is None:
                problems.append(
                    ((*where, "check"), "step 1 follows `start`, but the drill has no start")
                )
            elif number > 0 and not drill.steps[number - 1].checked:
                problems.append(
                    (
                        (*where, "check"),
                        f"step {number + 1} cannot follow a self-rated step; "
                        "make it `check: value` or `check: self-rated`",
                    )
                )
        if not step.checked and (step.mistakes or step.solve_for or step.given):
            problems.append(
                (
                    where,
                    f"step {number + 1} is self-rated: no checker reads its mistakes, "
                    "solve_for or given values",
                )
            )
    return problems


# --- finding the drills of a set --------------------------------------------------------------


def special_drill_file(set_name: str, store: Path, kind: str) -> tuple[Path, str] | None:
    """`<store>/drills/<set>-<kind>.yaml` (the learner's own) before the built-in one.

    Timed and rapid-fire drills (`kind` "timed", "rapid") live one file per set next to the
    derivation drills; the learner's own file replaces the built-in one.
    """
    if not is_set_name(set_name):
        return None
    for root in reversed(drill_roots(store)):
        for suffix in SUFFIXES:
            path = root.path / f"{set_name}-{kind}{suffix}"
            if path.is_file():
                return path, f"{root.label}/{path.name}"
    return None


def drill_roots(store: Path) -> list[BankRoot]:
    return roots_of("drills", store)


def open_drill_set(name: str, store: Path) -> DrillSet:
    """Every drill of set `name`; UsageError when there is none, BankError when a file is bad."""
    roots = drill_roots(store)
    files = set_files(name, roots)
    if not files:
        names = [n for n in available_sets(roots) if not n.endswith(SPECIAL_SUFFIXES)]
        known = ", ".join(names) or "none"
        raise UsageError(f"no drills for set {name!r} (sets with drills: {known})")
    merged = merge_set_files(
        name,
        files,
        lambda path, shown: load_drill_file(path, shown, set_name=name),
        lambda loaded: loaded.drills,
    )
    if merged.problems:
        raise BankError(merged.problems)
    return DrillSet(name=name, title=merged.title, drills=tuple(merged.entries))
