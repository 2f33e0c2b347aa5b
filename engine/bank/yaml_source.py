"""Safe YAML reading that keeps line numbers and refuses what banks must not contain.

PyYAML's composer gives us nodes with positions; we build plain Python values from them ourselves,
so that duplicate keys, tags, anchors and aliases are reported at their line instead of being
silently merged, constructed, or expanded (an alias bomb expands exponentially).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from attention_ref.bounded_read import read_at_most
from engine.bank.file_header import FILE_KINDS, FORMAT_VERSION, FileKind

MAX_BANK_BYTES = 2_000_000
# Banks nest some six levels; a reader that recursed once per level must never see 10,000.
MAX_NESTING = 40
PARSE_SECONDS = 5.0
# libyaml's parser is some 20 times faster; its nodes carry the same positions.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:map",
}

Path_ = tuple[str | int, ...]


@dataclass
class YamlDocument:
    """A parsed file: its value, the line of every node by path, and the problems found."""

    path: str
    value: Any = None
    lines: dict[Path_, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def line_of(self, loc: Path_) -> int:
        """Line of the deepest known node on `loc` (1 when nothing matches)."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return 1

    def problem(self, line: int, message: str) -> None:
        self.problems.append(f"{self.path}:{line}: {message}")


def read_yaml(path: Path, shown_as: str | None = None, *, raw: bytes | None = None) -> YamlDocument:
    """The file at `path` parsed, or `raw`, its bytes as already read."""
    doc = YamlDocument(path=shown_as or str(path))
    try:
        if raw is None:
            raw = read_at_most(path, MAX_BANK_BYTES)
    except OSError as exc:
        doc.problem(1, f"cannot read the file: {exc.strerror or exc}")
        return doc
    if raw is None:
        doc.problem(1, f"file is larger than {MAX_BANK_BYTES // 1_000_000} MB; split the bank")
        return doc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        doc.problem(raw[: exc.start].count(b"\n") + 1, "not UTF-8 text; save the file as UTF-8")
        return doc
    return parse_yaml_text(text, doc)


def parse_yaml_text(text: str, doc: YamlDocument) -> YamlDocument:
    for number, text_line in enumerate(text.splitlines(), start=1):
        if "\t" in text_line:
            doc.problem(number, "tab character; indent and separate with spaces only")
    try:
        if _scan_events(text, doc):
            return doc
        nodes = list(yaml.compose_all(text, Loader=_FAST_LOADER))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = exc.problem or exc.context or "invalid YAML"
        if "maximum nesting depth" in what:
            # libyaml (0.2.5 onwards, as PyYAML 6.0.4 ships it) has its own depth limit, far
            # above ours, and its scanner may reach it before the events reach ours.
            doc.problem(line, f"nested more than {MAX_NESTING} levels deep; flatten it")
            return doc
        if exc.context and exc.context_mark and exc.problem:
            what += f" ({exc.context} at line {exc.context_mark.line + 1})"
        doc.problem(line, f"YAML syntax error: {what}")
        return doc
    except yaml.reader.ReaderError as exc:  # a character YAML refuses: say where it is
        what = "a control character" if exc.character < 0xA0 else "a character YAML refuses"
        doc.problem(
            text.count("\n", 0, exc.position) + 1,
            f"{what} U+{exc.character:04X}; delete it (write text as plain characters)",
        )
        return doc
    except yaml.YAMLError as exc:
        doc.problem(1, f"YAML syntax error: {exc}")
        return doc
    except RecursionError:
        doc.problem(1, "the YAML is nested too deeply to be a bank")
        return doc
    if len(nodes) != 1:
        doc.problem(1, "expected exactly one YAML document" if nodes else "the file is empty")
        return doc
    builder = _Builder(doc)
    doc.value = builder.build(nodes[0], ())
    return doc


def _scan_events(text: str, doc: YamlDocument) -> bool:
    """Read the event stream once, before anything is composed; True if that found problems.

    Reports every alias at its own line (composed nodes no longer know where the alias was),
    and stops at the first collection nested deeper than MAX_NESTING, or when reading takes
    longer than PARSE_SECONDS: the composers (libyaml's and PyYAML's) recurse once per level,
    and a few kB of `[` would exhaust their stack. The parser itself streams, so stopping
    early costs no more than the events read so far.
    """
    found = False
    depth = 0
    deadline = time.monotonic() + PARSE_SECONDS
    for count, event in enumerate(yaml.parse(text, Loader=_FAST_LOADER)):
        line = event.start_mark.line + 1 if event.start_mark else 1
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                doc.problem(line, f"nested more than {MAX_NESTING} levels deep; flatten it")
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            alias = f"YAML alias *{event.anchor} is not allowed in banks; repeat the text"
            doc.problem(line, alias)
            found = True
        if count % 1024 == 0 and time.monotonic() > deadline:
            doc.problem(line, f"reading took more than {PARSE_SECONDS:g} s; simplify the file")
            return True
    return found


class _Builder:
    def __init__(self, doc: YamlDocument) -> None:
        self.doc = doc
        self.seen: set[int] = set()
        self.scalars = yaml.SafeLoader("")

    def build(self, node: yaml.Node, path: Path_) -> Any:
        line = node.start_mark.line + 1
        self.doc.lines[path] = line
        if id(node) in self.seen:
            self.doc.problem(line, "YAML aliases (*name) are not allowed in banks; repeat the text")
            return None
        self.seen.add(id(node))
        if node.tag == "tag:yaml.org,2002:timestamp" and isinstance(node, yaml.ScalarNode):
            return str(node.value)  # an unquoted date is text to us, not a datetime
        if node.tag not in _PLAIN_TAGS:
            self.doc.problem(line, f"YAML tag {node.tag!r} is not allowed; write plain values")
            return None
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.doc.problem(key_line, "YAML merge keys (<<) are not allowed in banks")
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.doc.problem(key_line, "a key must be plain text")
                continue
            key = str(key_node.value)
            if key in first_line:
                self.doc.problem(
                    key_line, f"duplicate key {key!r} (first at line {first_line[key]})"
                )
                continue
            first_line[key] = key_line
            out[key] = self.build(value_node, (*path, key))
            self.doc.lines[(*path, key)] = key_line
        return out

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        try:
            return self.scalars.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            digits = sum(char.isdigit() for char in str(node.value))
            # Python's own words for it name sys.set_int_max_str_digits(), not the file's fix.
            problem = (
                f"a number of {digits} digits is too long to read; shorten it, or quote it "
                "if it is text"
                if digits > sys.get_int_max_str_digits() > 0
                else f"unreadable value: {exc}"
            )
            self.doc.problem(node.start_mark.line + 1, problem)
            return None


def read_versioned(
    path: Path, shown_as: str | None, *, kind: FileKind, raw: bytes | None = None
) -> tuple[YamlDocument, dict[str, Any] | None]:
    """Read a versioned file (a bank, a drill file) as `kind`: its mapping, or None after a
    problem that leaves nothing else worth reporting (an unreadable file, a version other than
    `FORMAT_VERSION`, a `kind:` that is not `kind`). `raw`: the file's bytes, already read."""
    version = FORMAT_VERSION
    label = FILE_KINDS[kind].label
    contents = f"format_version, set, title and {FILE_KINDS[kind].section}"
    doc = read_yaml(path, shown_as, raw=raw)
    if doc.value is None:
        if not doc.problems:
            doc.problem(1, f"the file is empty: {label} has {contents}")
        return doc, None
    if not isinstance(doc.value, dict):
        doc.problem(1, f"{label} is a mapping with {contents}")
        return doc, None
    found = doc.value.get("format_version")
    if found is not None and found != version:
        doc.problem(
            doc.line_of(("format_version",)),
            f"format_version is the text {found!r}; write it as a number: format_version: {version}"
            if isinstance(found, str) and found.strip() == str(version)
            else f"format_version {found!r} is not supported (this attnquiz reads {version})",
        )
        return doc, None
    if not check_kind(doc, doc.value, kind):
        return doc, None
    return doc, doc.value


def check_kind(doc: YamlDocument, value: dict[str, Any], kind: FileKind) -> bool:
    """Whether the file's `kind:` (if it has one) lets it be read as `kind`; otherwise one
    problem at the `kind:` line. A file without `kind:` is read as its place says."""
    if "kind" not in value:
        return True
    declared = value["kind"]
    line = doc.line_of(("kind",))
    if not isinstance(declared, str) or declared not in FILE_KINDS:
        known = ", ".join(FILE_KINDS)
        doc.problem(line, f"file kind {declared!r} is not one of: {known}")
        return False
    said = FILE_KINDS[declared]  # type: ignore[index]  # a FileKind: checked just above
    if declared != kind:
        doc.problem(
            line,
            f"kind: {declared} says this is {said.label}, which belongs in {said.place}, "
            f"but it is read here as {FILE_KINDS[kind].label}; move the file or correct its kind",
        )
        return False
    if said.section in value:
        return True
    for other, what in FILE_KINDS.items():
        if what.section in value:
            doc.problem(
                line,
                f"kind: {declared} says this is {said.label}, but the file has "
                f"`{what.section}:` (what {what.label} has) and no `{said.section}:`; "
                f"make it `kind: {other}` or give it `{said.section}:`",
            )
            return False
    return True


def check_set_name(doc: YamlDocument, declared: str, set_name: str | None) -> None:
    """The `set:` field must repeat the name the file's place gives it (quizzes/15.yaml: 15)."""
    if set_name is not None and declared != set_name:
        doc.problem(
            doc.line_of(("set",)),
            f"set {declared!r} does not match its file or folder name {set_name!r}",
        )
