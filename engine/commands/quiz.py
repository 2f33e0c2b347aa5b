"""`attnquiz quiz SET`: a review session, interactive on a terminal, scripted otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.bank.catalog import open_set
from engine.commands.frame import Frame, run_in_frame
from engine.errors import UsageError
from engine.exit_codes import EXIT_INTERRUPTED, EXIT_OK
from engine.session import ReviewSession
from engine.store.parameters import scheduling_for
from engine.store.settings import save_settings
from engine.ui.loop import AnswerMark, Frontend, run_review
from engine.ui.summary import print_summary

if TYPE_CHECKING:
    from engine.checking.worker.bounded import Checker


def run_quiz(
    set_name: str,
    new_per_day: int | None,
    retention: float | None,
    cram: bool,
    tags: tuple[str, ...],
    data_dir: Path | None,
    confidence: bool | None = None,
    *,
    checker: Checker | None = None,
) -> int:
    """`new_per_day`, `retention` and `confidence`, when given, are stored as the learner's
    settings (and hold for every later command); None uses the stored ones."""

    def review(frame: Frame) -> int:
        return _review(frame, set_name, new_per_day, retention, cram, tags, confidence)

    return run_in_frame(review, data_dir, checker, kept="every answer so far is saved")


def _review(
    frame: Frame,
    set_name: str,
    new_per_day: int | None,
    retention: float | None,
    cram: bool,
    tags: tuple[str, ...],
    confidence: bool | None,
) -> int:
    clock = frame.clock
    qset = open_set(set_name, frame.folder)
    unknown = sorted(set(tags) - {t for item in qset.items for t in item.tags})
    if unknown:
        raise UsageError(f"no item of set {set_name} has the tag {unknown[0]!r}")
    store = frame.store()
    settings = save_settings(
        store, clock(), retention=retention, new_per_day=new_per_day, confidence=confidence
    )
    # The learner's fitted FSRS parameters, if `attnquiz optimize` stored some.
    scheduling = scheduling_for(store, settings.retention)
    frontend: Frontend
    console = None
    if not frame.interactive:
        from engine.ui.scripted import ScriptedFrontend

        frontend = ScriptedFrontend(confidence=settings.confidence)
    else:
        from engine.ui.console import make_console
        from engine.ui.interactive import InteractiveFrontend

        console = make_console()
        frontend = InteractiveFrontend(console, confidence=settings.confidence)
    session = ReviewSession(
        store,
        qset,
        scheduling,
        clock,
        new_per_day=settings.new_per_day,
        cram=cram,
        tags=tags,
        leeches=settings.leeches,
        checker=frame.checker,
    )
    code = EXIT_OK
    # Filled as the learner answers, so the chart of the session also shows after Ctrl-C.
    answers: list[AnswerMark] = []
    try:
        if console is not None:
            from rich.text import Text

            from engine.ui.literal import literal

            heading = f" · set {qset.name}" + (" · cram" if cram else "")
            console.print(Text.assemble(literal(qset.title, "bold"), heading))
        run_review(session, frontend, answers)
    except (KeyboardInterrupt, EOFError) as exc:
        code = EXIT_INTERRUPTED if isinstance(exc, KeyboardInterrupt) else EXIT_OK
    finally:
        summary = session.finish()
    print_summary(console, summary, clock(), answers, set_name=qset.name)
    frame.kept = f"every answer so far is saved ({summary.reviewed} this session)"
    return code
