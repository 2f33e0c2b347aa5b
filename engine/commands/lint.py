"""`attnquiz lint PATH...`: every problem of every bank and drill as `PATH:LINE: message`, exit 2
if any. Derivation, timed and rapid-fire drills are each re-checked with the checkers they use."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from engine.bank.catalog import SUFFIXES, not_a_file
from engine.bank.file_header import FILE_KINDS, FileKind
from engine.bank.loader import load_bank_file
from engine.bank.model import QuestionSet
from engine.bank.yaml_source import read_yaml
from engine.checking.worker.bounded import Checker
from engine.commands.frame import run_in_frame
from engine.exit_codes import EXIT_OK, EXIT_USAGE
from engine.ui.literal import plain


def bank_files(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """The files to check, and a problem for each path that names none, or each entry of a
    folder with a bank's name that is not read (lint says what it skipped, never in silence)."""
    files: list[Path] = []
    problems: list[str] = []
    for path in paths:
        if path.is_dir():
            named = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and not p.is_dir())
            found = [p for p in named if p.is_file()]
            problems += [not_a_file(p) for p in named if not p.is_file()]
            if not named:
                problems.append(f"{path}:1: no .yaml files in this folder")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(
                not_a_file(path)
                if path.is_symlink() or path.exists()
                else f"{path}:1: no such file or folder"
            )
    return files, problems


def set_name_of(path: Path) -> str | None:
    """The set a bank file belongs to, by its place: quizzes/15.yaml or quizzes/15/*.yaml."""
    if path.parent.name == "quizzes":
        return path.stem
    if path.parent.parent.name == "quizzes":
        return path.parent.name
    return None


def drill_set_of(path: Path) -> tuple[bool, str | None]:
    """Whether a file is a drill file (it lies under a `drills/` folder), and its set."""
    if path.parent.name == "drills":
        return True, path.stem.removesuffix("-timed").removesuffix("-rapid")
    if path.parent.parent.name == "drills":
        return True, path.parent.name
    return False, None


def placed_kind(path: Path) -> tuple[FileKind | None, str | None]:
    """What a file's place says it is, and its set: a bank under `quizzes/`, under `drills/` a
    timed, rapid or derivation drill file by its name; (None, None) anywhere else."""
    is_drill, drill_set = drill_set_of(path)
    if is_drill:
        if path.stem.endswith("-timed"):
            return "timed-drill", drill_set
        return ("rapid-drill" if path.stem.endswith("-rapid") else "drills"), drill_set
    name = set_name_of(path)
    return ("bank" if name is not None else None), name


def kind_and_set(path: Path) -> tuple[FileKind, str | None, list[str]]:
    """What lint reads a file as: its `kind:` when it has one, else what its place says (a
    bank outside `quizzes/` and `drills/`, as before `kind:`); the set name the file must
    repeat; and a problem when the place is one attnquiz reads files of another kind from."""
    placed, set_name = placed_kind(path.resolve())
    declared, declared_set, line = _declared_kind(path)
    if declared is None or declared == placed:
        return placed or "bank", set_name, []
    if placed is None:
        # Outside quizzes/ and drills/: the file names its own set.
        return declared, declared_set, []
    said, here = FILE_KINDS[declared], FILE_KINDS[placed]
    problem = (
        f"{path}:{line}: kind: {declared} says this is {said.label}, which belongs in "
        f"{said.place}, but it lies where attnquiz reads {here.label} ({here.place}); "
        "move the file or correct its kind"
    )
    return declared, declared_set, [problem]


def _declared_kind(path: Path) -> tuple[FileKind | None, str | None, int]:
    """The file's own `kind:` (None when it has none or one that is not a kind: the loader
    reports that), its `set:` as text, and the line of `kind:`."""
    doc = read_yaml(path)
    if not isinstance(doc.value, dict):
        return None, None, 1
    kind, set_name = doc.value.get("kind"), doc.value.get("set")
    set_text = str(set_name) if isinstance(set_name, str | int) else None
    for known in FILE_KINDS:
        if kind == known:
            return known, set_text, doc.line_of(("kind",))
    return None, set_text, 1


def lint_timed(path: Path, set_name: str | None, checker: Checker) -> tuple[list[str], int]:
    """Problems of a timed drill: its schema, the items it names, and every model answer
    re-checked as the drill checks it. The items come from the set's bank next to the drills
    (`../quizzes`), else from the built-in one."""
    from engine.drills.timed.file import read_timed_drill
    from engine.drills.timed.grading import timed_drill_problems

    qset, problems = _set_of_drill(path, set_name)
    drill, found = read_timed_drill(path, str(path), qset, set_name)
    if drill is None:
        return found, 0  # the file itself is wrong: which bank checks its items can wait
    problems += found
    if qset is not None and not found:
        problems += timed_drill_problems(drill, qset, str(path), checker)
    return problems, sum(len(p.questions) for p in drill.parts)


def lint_rapid(path: Path, set_name: str | None, checker: Checker) -> tuple[list[str], int]:
    """Problems of a rapid-fire drill: its schema, each template's derived answer, and seeded
    draws of every template graded by the shape checker."""
    from engine.drills.rapid.file import read_rapid_drill
    from engine.drills.rapid.rounds import rapid_drill_problems

    drill, problems = read_rapid_drill(path, str(path), set_name)
    if drill is not None and not problems:
        problems += rapid_drill_problems(drill, str(path), checker)
    return problems, 0 if drill is None else len(drill.section.templates)


def _set_of_drill(path: Path, set_name: str | None) -> tuple[QuestionSet | None, list[str]]:
    from engine.bank.catalog import BankRoot, set_files
    from engine.bank.loader import load_set
    from engine.errors import BankError
    from engine.paths import builtin_dir

    if set_name is None:
        return None, [f"{path}:1: put the drill in a drills/ folder, named <set>-timed.yaml"]
    beside = path.resolve().parent.parent / "quizzes"
    try:
        files = set_files(set_name, [BankRoot(beside, str(beside))])
        files = files or set_files(set_name, [BankRoot(builtin_dir("quizzes"), "quizzes")])
        if not files:
            return None, [f"{path}:1: no question bank for set {set_name!r} to check the items"]
        return load_set(set_name, files), []
    except BankError:
        return None, [f"{path}:1: the bank of set {set_name} has problems; lint it first"]


def lint_drills(
    path: Path, set_name: str | None, seen: dict[str, str], checker: Checker
) -> tuple[list[str], int]:
    """Problems of one derivation drill file (ids unique across the set's files), drill count."""
    from engine.drills.loader import load_drill_file

    loaded = load_drill_file(path, str(path), checker=checker, set_name=set_name)
    problems = loaded.problems + repeated_ids(path, loaded.drills, seen)
    return problems, len(loaded.drills)


class _Entry(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def line(self) -> int: ...


def repeated_ids(path: Path, entries: Iterable[_Entry], seen: dict[str, str]) -> list[str]:
    """An id that another file of the same set already has (`seen`: id -> its `PATH:LINE`,
    filled as the files are read), one problem each; within one file the loader reports it."""
    problems = []
    for entry in entries:
        if entry.id in seen:
            problems.append(
                f"{path}:{entry.line}: duplicate id {entry.id!r} (also in {seen[entry.id]})"
            )
        seen.setdefault(entry.id, f"{path}:{entry.line}")
    return problems


def run_lint(paths: list[Path], *, checker: Checker | None = None) -> int:
    """Every answer, drill line and model answer is re-checked by `checker` (the command
    line's, else one of its own)."""
    return run_in_frame(
        lambda frame: _lint(paths, frame.checker), None, checker, kept="no file is changed"
    )


def _lint(paths: list[Path], checker: Checker) -> int:
    files, problems = bank_files(paths)
    warnings: list[str] = []
    ids_by_set: dict[str, dict[str, str]] = {}
    drill_ids: dict[str | None, dict[str, str]] = {}
    total_items = 0
    for path in files:
        kind, name, misplaced = kind_and_set(path)
        problems.extend(misplaced)
        if kind != "bank":
            if kind == "timed-drill":
                found, count = lint_timed(path, name, checker)
            elif kind == "rapid-drill":
                found, count = lint_rapid(path, name, checker)
            else:
                seen_ids = drill_ids.setdefault(name, {})
                found, count = lint_drills(path, name, seen_ids, checker)
            problems.extend(found)
            total_items += count
            continue
        loaded = load_bank_file(path, str(path), checker=checker, set_name=name)
        problems.extend(loaded.problems)
        warnings.extend(loaded.warnings)
        total_items += len(loaded.items)
        if name is None:
            continue
        problems.extend(repeated_ids(path, loaded.items, ids_by_set.setdefault(name, {})))
    for line in (*problems, *warnings):
        print(plain(line), file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {len(files)} file(s)", file=sys.stderr)
        return EXIT_USAGE
    advice = f" ({len(warnings)} warning(s))" if warnings else ""
    print(f"{len(files)} file(s), {total_items} items: no problems{advice}")
    return EXIT_OK
