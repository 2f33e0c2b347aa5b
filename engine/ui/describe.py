"""Words for things the learner sees in both front ends: intervals, phases, verdict lines."""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.cards import Item
from engine.schedule import Phase
from engine.ui.mathtext import pretty_math
from engine.verdict import Verdict

COMMANDS_HELP = ":hint shows a hint, :undo takes back the last answer, :quit ends the session"


def interval(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h"
    days = seconds / 86400
    if days < 60:
        return f"{round(days)} d"
    if days < 730:
        return f"{days / 30.4:.1f} mo"
    return f"{days / 365.25:.1f} y"


def when(due: datetime | None, now: datetime) -> str:
    if due is None:
        return "new"
    if due <= now:
        return "due now"
    return f"in {interval(due - now)}"


def phase_name(phase: Phase) -> str:
    return {
        Phase.NEW: "new",
        Phase.LEARNING: "learning",
        Phase.REVIEW: "review",
        Phase.RELEARNING: "relearning",
    }[phase]


def shown_answer(item: Item) -> str:
    text = item.answer_text()
    return pretty_math(text) if item.kind in {"expression", "shape"} else text


def verdict_line(verdict: Verdict) -> str:
    if not verdict.valid:
        # The feedback says what could not be read; say it once.
        reason = verdict.feedback.strip() or "could not read this"
        return "? " + (
            reason if reason.startswith("could not") else f"could not read this: {reason}"
        )
    mark = "✓ correct" if verdict.correct else "✗ wrong"
    parts = [mark]
    if verdict.interpreted_as and verdict.valid:
        parts.append(f"read as {verdict.interpreted_as}")
    if verdict.feedback:
        parts.append(verdict.feedback)
    return " · ".join(parts)
