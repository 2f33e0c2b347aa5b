"""Tables of answers with the verdict a fair examiner gives, and a grader's agreement with them.

One reader and one report for every agreement test (typed answers, peer pairs, the clocked
drills). A row is tab-separated: its key columns (an item id; a drill part and question; a
template and its values; an expected expression), the answer, the verdict (`correct`, `wrong`
= readable, not right, `unreadable` = not graded, typed again) and an optional fragment the
feedback must contain. Lines starting with `#` are comments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

VERDICTS = ("correct", "wrong", "unreadable")
REQUIRED_AGREEMENT = 0.98


class Graded(Protocol):
    """What every grader returns: a Verdict, or a clocked drill's QuestionCheck."""

    @property
    def correct(self) -> bool: ...
    @property
    def valid(self) -> bool: ...
    @property
    def feedback(self) -> str: ...


@dataclass(frozen=True)
class Row:
    where: str  # FILE:LINE
    keys: tuple[str, ...]
    answer: str
    verdict: str
    fragment: str | None

    @property
    def target(self) -> str:
        """The first key: an item id, a drill part or template, or an expected expression."""
        return self.keys[0]


def read_rows(path: Path, keys: int = 1) -> list[Row]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        assert len(fields) >= keys + 2, f"{path.name}:{number}: {len(fields)} columns"
        answer, verdict, *rest = fields[keys:]
        assert verdict in VERDICTS, f"{path.name}:{number}: verdict {verdict!r}"
        fragment = rest[0] if rest and rest[0] else None
        rows.append(Row(f"{path.name}:{number}", tuple(fields[:keys]), answer, verdict, fragment))
    return rows


def outcome(graded: Graded) -> str:
    return "correct" if graded.correct else "wrong" if graded.valid else "unreadable"


def agrees(row: Row, graded: Graded | Exception) -> bool:
    """An exception (the table's own expected answer could not be read) never agrees."""
    if isinstance(graded, Exception) or outcome(graded) != row.verdict:
        return False
    return row.fragment is None or row.fragment.lower() in graded.feedback.lower()


def report(name: str, judged: list[tuple[Row, Graded | Exception]]) -> float:
    """Print the agreement over `judged` and every row misjudged; return the agreement."""
    misjudged = [(row, graded) for row, graded in judged if not agrees(row, graded)]
    agreement = 1 - len(misjudged) / len(judged)
    print(f"\n{name}: agreement {agreement:.1%} ({len(judged) - len(misjudged)}/{len(judged)})")
    for row, graded in misjudged:
        keys = " ".join(row.keys)
        if isinstance(graded, Exception):
            print(f"  {row.where}: the expected {keys!r} cannot be read: {graded}")
            continue
        print(
            f"  {row.where}: {keys} | {row.answer!r} expected {row.verdict}"
            f"{' (' + row.fragment + ')' if row.fragment else ''}, got {outcome(graded)}: "
            f"{graded.feedback}"
        )
    return agreement


def announce(config: Any, line: str) -> None:
    """Show an agreement figure in pytest's own report (seen under -q and xdist, unlike a
    test's stdout) as well as on stdout (`-s`). `config` is pytest's Config."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    print(line)
