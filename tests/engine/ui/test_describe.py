"""Words the learner reads: durations with one rounding, verdict lines that say nothing twice."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.ui.describe import days_text, interval, verdict_line
from engine.verdict import Verdict


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=20), "1 min"),
        (timedelta(minutes=5, seconds=30), "6 min"),  # a Hard step: the key and `list` agree
        (timedelta(minutes=5, seconds=24), "6 min"),
        (timedelta(minutes=59, seconds=40), "1 h"),
        (timedelta(hours=23, minutes=59, seconds=30), "1 d"),  # not "24 h"
        (timedelta(days=1), "1 d"),
        (timedelta(days=2, hours=23, minutes=59), "3 d"),
        (timedelta(days=59, hours=14), "2 mo"),  # not "60 d"
        (timedelta(days=60), "2 mo"),
        (timedelta(days=400), "13 mo"),
        (timedelta(days=800), "2 y"),
    ],
)
def test_durations_read_as_a_person_says_them(delta: timedelta, text: str) -> None:
    assert interval(delta) == text


def test_a_stability_in_days_uses_the_same_words() -> None:
    assert days_text(59.6) == interval(timedelta(days=59.6)) == "2 mo"
    assert days_text(0.99) == "1 d"


@pytest.mark.parametrize(
    ("verdict", "line"),
    [
        (
            Verdict(correct=True, interpreted_as="d_k", feedback="correct"),
            "✓ correct · read as d_k",
        ),
        (
            Verdict(
                correct=True, interpreted_as="22.6", feedback="correct to the stated precision"
            ),
            "✓ correct · read as 22.6 · to the stated precision",
        ),
        (
            Verdict(
                correct=False, interpreted_as="√d_k", feedback="that is the standard deviation."
            ),
            "✗ wrong · read as √d_k · that is the standard deviation.",
        ),
        (
            Verdict(correct=False, valid=False, feedback="unbalanced ("),
            "? could not read this · unbalanced (",
        ),
    ],
)
def test_a_verdict_line_says_nothing_twice(verdict: Verdict, line: str) -> None:
    assert verdict_line(verdict) == line
