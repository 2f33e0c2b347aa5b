"""Words for things the learner sees in both front ends: intervals, phases, verdict lines."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

from engine.cards import Item
from engine.mathtext import pretty_math
from engine.verdict import Verdict

COMMANDS_HELP = ":hint shows a hint, :undo takes back the last answer, :quit ends the session"


DAYS_PER_MONTH = 30.44
DAYS_PER_YEAR = 365.25


def interval(delta: timedelta) -> str:
    """A duration as a person says it: one unit, a whole number, rounded to the nearest.

    Each unit is rounded before the next larger one is chosen, so 23 h 59 min reads "1 d", not
    "24 h", and 59.6 days "2 mo", not "60 d". Minutes round up: a wait of 5.5 min reads "6 min"
    on its rating key and still "6 min" in `list` a few seconds later. Every duration the
    learner sees goes through here.
    """
    return _spoken(delta.total_seconds())


def _spoken(seconds: float) -> str:
    seconds = max(0.0, seconds)
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"{max(1, minutes)} min"
    hours = round(seconds / 3600)
    if hours < 24:
        return f"{hours} h"
    days = round(seconds / 86400)
    if days < 60:
        return f"{days} d"
    months = round(days / DAYS_PER_MONTH)
    if months < 24:
        return f"{months} mo"
    return f"{round(days / DAYS_PER_YEAR)} y"


def days_text(days: float) -> str:
    """A length given in days (a stability, say), in the same words as `interval`; any number
    of days (a timedelta holds at most 999,999,999)."""
    return _spoken(days * 86400)


def when(due: datetime | None, now: datetime) -> str:
    if due is None:
        return "new"
    if due <= now:
        return "due now"
    return f"in {interval(due - now)}"


def shown_answer(item: Item) -> str:
    text = item.answer_text()
    return pretty_math(text) if item.kind in {"expression", "shape"} else text


def verdict_line(verdict: Verdict) -> str:
    """`✓ correct · read as … · feedback`, saying nothing twice: feedback that only repeats the
    verdict (`correct`) or the reading is left out, and a verdict word it starts with too
    (`correct to the stated precision` reads `to the stated precision`)."""
    if not verdict.valid:
        # The feedback says what could not be read; say it once.
        reason = verdict.feedback.strip()
        if reason.startswith("could not") and not reason.startswith("could not read this"):
            return f"? {reason}"  # could not check this in time, ...
        reason = reason.removeprefix("could not read this").lstrip(":· ").strip()
        return "? could not read this" + (f" · {reason}" if reason else "")
    mark = "✓ correct" if verdict.correct else "✗ wrong"
    parts = [mark]
    if verdict.interpreted_as and verdict.valid:
        parts.append(f"read as {verdict.interpreted_as}")
    feedback = _without_leading(mark.split()[-1], verdict.feedback or "")
    if feedback and not _repeats(feedback, parts):
        parts.append(feedback)
    return " · ".join(parts)


_WORD = re.compile(r"[\w√ᵀ]+")


def _without_leading(word: str, text: str) -> str:
    """The text without a first word that repeats `word` (and the punctuation after it)."""
    text = text.strip()
    match = re.match(rf"{re.escape(word)}\b[\s;:,.!—-]*", text, flags=re.IGNORECASE)
    return text[match.end() :] if match and match.end() < len(text) else text


def _repeats(feedback: str, shown: list[str]) -> bool:
    """Whether every word of the feedback is already on the line."""
    words = {w.lower() for w in _WORD.findall(feedback)}
    seen = {w.lower() for part in shown for w in _WORD.findall(part)}
    return bool(words) and words <= seen
