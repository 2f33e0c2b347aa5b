"""The pictures: the forecast and retention charts of `stats`, the per-tag table, and the chart
at the end of a quiz session. All drawn to strings: at most 80 columns, no escape codes when
colour is off."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from rich.console import Console

from engine.bank.catalog import open_set
from engine.schedule import Grade, Scheduling
from engine.session import ReviewSession, Summary
from engine.stats import DueDay, RetentionPeriod, TagStrength
from engine.store import open_store
from engine.ui.charts import (
    MIN_CHART_REVIEWS,
    chart_width,
    forecast_chart,
    retention_chart,
)
from engine.ui.loop import AnswerMark, run_review
from engine.ui.scripted import ScriptedFrontend
from engine.ui.session_chart import session_chart
from engine.ui.strength import strength_table
from engine.ui.summary import print_summary
from tests.conftest import warm_checker

ESCAPE = "\x1b"
START = date(2026, 5, 4)
NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def width_of(text: str) -> int:
    return max(len(re.sub(r"\x1b\[[0-9;]*m", "", line)) for line in text.splitlines())


def forecast(counts: list[int]) -> list[DueDay]:
    return [DueDay((START + timedelta(days=k)).isoformat(), n) for k, n in enumerate(counts)]


def weekly(rows: list[tuple[int, int]]) -> list[RetentionPeriod]:
    return [
        RetentionPeriod((START + timedelta(weeks=k)).isoformat(), n, ok, ok / n if n else None)
        for k, (n, ok) in enumerate(rows)
    ]


def rendered(renderable: object, width: int = 80) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(renderable)
    return out.getvalue()


COUNTS = [12, 0, 3, 1, 0, 7, 0, 0, 2, 0, 0, 5, 0, 1, 4]


@pytest.mark.parametrize("width", [80, 60, 40])
def test_the_forecast_fits_its_width_and_is_plain_text_without_colour(width: int) -> None:
    chart = forecast_chart(forecast(COUNTS), width=width, colour=False)
    assert ESCAPE not in chart
    assert width_of(chart) <= width


def test_the_forecast_writes_each_days_count_above_its_bar_and_starts_today() -> None:
    chart = forecast_chart(forecast(COUNTS), width=80, colour=False)
    lines = chart.splitlines()
    counts_line = next(line for line in lines if line.split() and line.split()[0] == "12")
    assert [int(n) for n in counts_line.split()] == COUNTS
    assert lines[-1].split()[0] == "today"
    # The tallest bar (today's 12) is the only one reaching the top row of the frame.
    top = lines.index(counts_line) + 2
    assert lines[top].count("█") and lines[top].index("█") < 10


def test_charts_are_coloured_only_when_asked() -> None:
    assert ESCAPE in forecast_chart(forecast(COUNTS), width=80, colour=True)
    history = weekly([(30, 27), (40, 33), (25, 24)])
    assert ESCAPE in retention_chart(history, 0.9, "week", width=80, colour=True)
    assert ESCAPE not in retention_chart(history, 0.9, "week", width=80, colour=False)


def test_chart_width_is_the_console_width_up_to_80() -> None:
    assert chart_width(200) == 80 and chart_width(72) == 72 and chart_width(10) == 40


def test_retention_is_a_line_against_the_desired_retention() -> None:
    history = weekly([(30, 27), (40, 30), (2, 1), (25, 24), (33, 30)])
    chart = retention_chart(history, 0.8, "week", width=80, colour=False)
    assert width_of(chart) <= 80 and ESCAPE not in chart
    desired_row = next(line for line in chart.splitlines() if line.lstrip().startswith("80┼"))
    assert "┈" in desired_row  # the desired retention's dotted line
    words = " ".join(chart.split())
    assert "130 graduated reviews in the last 5 weeks, 112 recalled (86%)" in words
    assert "weeks with fewer than 5 reviews are left out" in words  # the week of 2 reviews


def test_too_few_reviews_give_the_counts_instead_of_a_chart() -> None:
    history = weekly([(3, 3), (0, 0), (MIN_CHART_REVIEWS - 4, 10)])
    text = retention_chart(history, 0.9, "day", width=80, colour=False)
    words = " ".join(text.split())
    assert "┌" not in text and "19 graduated reviews" in words and "13 recalled (68%)" in words
    assert width_of(text) <= 80
    assert retention_chart([], 0.9, "day", width=80, colour=False).endswith("no reviews yet")


def test_the_tag_table_reads_weakest_first_in_80_columns() -> None:
    tags = [
        TagStrength("masking", 9, 4, 0.6123, 12.6, 9, 1),
        TagStrength("a-rather-long-tag-name-for-a-topic", 20, 11, 0.93, 62.0, 3, 0),
        TagStrength("roofline", 11, 0, None, None, 0, 0),
    ]
    text = rendered(strength_table(tags, 0.9))
    assert width_of(text) <= 80
    rows = [line for line in text.splitlines() if line.strip()]
    assert "61%" in rows[2] and "masking" in rows[2] and "13 d" in rows[2]
    assert "not started" in rows[-1] and "roofline" in rows[-1]
    assert "no item of this set has a tag" in rendered(strength_table([], 0.9))


def mark(item: str, grade: Grade, *tags: str, new: bool = False) -> AnswerMark:
    return AnswerMark(item_id=item, tags=tags, grade=grade, new=new)


SESSION = [
    mark("a", Grade.GOOD, "variance", new=True),
    mark("b", Grade.AGAIN, "variance", "shapes"),
    mark("c", Grade.EASY, "shapes"),
    mark("d", Grade.AGAIN, "variance"),
    mark("e", Grade.GOOD, "softmax"),
]


def test_the_session_chart_shows_answers_in_order_ratings_and_tags() -> None:
    text = rendered(session_chart(SESSION))
    assert ESCAPE not in text and width_of(text) <= 80
    assert "✓✗✓✗✓" in text
    lines = {line.split()[0]: line for line in text.splitlines() if line.split()}
    assert lines["again"].rstrip().endswith(" 2") and lines["hard"].rstrip().endswith(" 0")
    assert lines["good"].count("█") == lines["again"].count("█") > lines["easy"].count("█") > 0
    # Most misses first: variance (1 of 3), then shapes (1 of 2), then softmax.
    tag_rows = [line.split()[0] for line in text.splitlines() if " of " in line]
    assert tag_rows == ["variance", "shapes", "softmax"]
    assert "1 of 3" in lines["variance"] and lines["variance"].count("░") > 0


def test_a_long_session_keeps_its_last_answers_in_three_lines_at_most() -> None:
    answers = [mark(f"i{n}", Grade.AGAIN if n % 7 else Grade.GOOD) for n in range(500)]
    text = rendered(session_chart(answers, 60), width=60)
    mark_lines = [line for line in text.splitlines() if "✗" in line]
    assert len(mark_lines) <= 3 and "…" in mark_lines[0] and width_of(text) <= 60


def test_the_summary_shows_the_chart_on_a_terminal_and_plain_lines_to_scripts(capsys) -> None:
    summary = Summary(reviewed=5, correct=3, new=1, again=2)
    out = io.StringIO()
    print_summary(Console(file=out, width=80, color_system=None), summary, NOW, SESSION)
    assert "Session done" in out.getvalue() and "this session" in out.getvalue()
    print_summary(None, summary, NOW, SESSION)
    printed = capsys.readouterr().out
    assert printed.startswith("session: reviewed 5") and "this session" not in printed


def test_the_session_loop_logs_answers_and_takes_back_an_undone_one(store_home: Path) -> None:
    store = open_store(store_home)
    qset = open_set("demo", store_home)
    session = ReviewSession(
        store,
        qset,
        Scheduling(fuzz=False),
        lambda: NOW,
        new_per_day=2,
        checker=warm_checker(),
    )
    # recall-one rated Good, undone, rated Again; then choice-axis answered right (option 1).
    frontend = ScriptedFrontend(io.StringIO("3\n:undo\n1\n1\n"), io.StringIO(), io.StringIO())
    answers: list[AnswerMark] = []
    run_review(session, frontend, answers)
    session.finish()
    assert [(a.item_id, a.grade, a.new) for a in answers][:2] == [
        ("recall-one", Grade.AGAIN, True),
        ("choice-axis", Grade.GOOD, True),
    ]
    assert answers[0].tags == ("equation",) and answers[1].tags == ("softmax",)
    logged = store.db.execute("SELECT item_id, rating FROM reviews ORDER BY id").fetchall()
    assert [(a.item_id, int(a.grade)) for a in answers] == logged
