"""`submit --watch`: grade, then grade again on every save of the file until it passes.

The first report is complete; later ones show only what changed (the verdict, the cases whose
result changed, a new or a gone mistake), so the learner's eye goes straight to the difference.
File events come from watchfiles, filtered to the one file (editors that save by renaming a new
file over the old one are covered, since the folder is watched).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from engine.exit_codes import EXIT_NEGATIVE, EXIT_OK
from engine.ui.literal import literal

if TYPE_CHECKING:
    from attention_ref.grading import Grade


def grade_until_passed(
    path: Path,
    grade_once: Callable[[], Grade],
    show_full: Callable[[Grade], None],
    console: Console,
    *,
    stop_after: int | None = None,
) -> int:
    """Grade now and after every save; exit 0 once a version passes. `stop_after` bounds the
    number of re-grades (for tests); Ctrl-C ends the watch (exit 130 at the CLI edge)."""
    import watchfiles

    signature = _signature(path)
    grade = grade_once()
    show_full(grade)
    if grade.passed:
        return EXIT_OK
    target = path.resolve()
    regrades = 0
    announced = False
    # yield_on_timeout: the first (empty) yield means the watcher is running, so "watching" is
    # only said once a save can no longer be missed; the file's signature is compared at every
    # wake-up as well, in case an event was lost.
    for _changes in watchfiles.watch(
        target.parent,
        watch_filter=lambda _change, changed: Path(changed).resolve() == target,
        debounce=400,
        rust_timeout=1000,
        yield_on_timeout=True,
        raise_interrupt=True,
    ):
        if not announced:
            console.print(
                literal(f"watching {path.name}: save it to grade it again (Ctrl-C to stop)")
            )
            console.file.flush()  # seen at once even through a pipe (| tee)
            announced = True
        now = _signature(path)
        if now is None or now == signature:
            continue
        signature = now
        previous, grade = grade, grade_once()
        show_changes(previous, grade, console)
        console.file.flush()
        regrades += 1
        if grade.passed:
            show_full(grade)
            return EXIT_OK
        if stop_after is not None and regrades >= stop_after:
            break
    return EXIT_NEGATIVE


def _signature(path: Path) -> tuple[int, int, bytes] | None:
    """What identifies one saved version of the file: None while it is missing mid-save, or is
    no regular file (a pipe would block the read, a device never end). A file over the size
    limit is not read either: its size and time tell its versions apart, and grading it says
    it is too large."""
    import hashlib

    from attention_ref.bounded_read import read_at_most
    from attention_ref.discovery import MAX_SOURCE_BYTES

    try:
        stat = path.stat()
        text = read_at_most(path, MAX_SOURCE_BYTES)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, hashlib.sha256(text or b"").digest()


def show_changes(before: Grade, after: Grade, console: Console) -> None:
    """Only the difference between two grades of the same file."""
    console.rule(Text("saved: graded again"), style="dim")
    if after.verdict != before.verdict or after.message != before.message:
        line = f"now: {after.verdict.replace('_', ' ')}"
        console.print(Text(line + (f" ({after.message})" if after.message else "")))
    earlier = {case.name: case for case in before.cases}
    changed = 0
    for case in after.cases:
        old = earlier.get(case.name)
        if old is None or old.passed != case.passed or old.message != case.message:
            mark = Text("✓ ", "green") if case.passed else Text("✗ ", "red")
            console.print(Text.assemble(mark, (case.name, "bold"), f": {case.message}"))
            changed += 1
    for name in after.diagnosis:
        if name not in before.diagnosis:
            console.print(Text.assemble(("new mistake: ", "bold yellow"), name.replace("_", " ")))
    for name in before.diagnosis:
        if name not in after.diagnosis:
            console.print(Text.assemble(("fixed: ", "bold green"), name.replace("_", " ")))
    if not changed and after.verdict == before.verdict:
        console.print(Text("no case changed", style="dim"))
