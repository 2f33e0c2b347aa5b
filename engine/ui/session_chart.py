"""A small picture of one quiz session: the answers in order, the ratings, the tags.

Rich text only (no plotext): rows of marks and block bars read well at this size, and cost no
import at the end of a session. Marks differ in shape, not only colour, so NO_COLOR loses nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from engine.schedule import Grade
from engine.ui.loop import AnswerMark

CHART_WIDTH = 80
LABEL_WIDTH = 12
MAX_TAG_ROWS = 6
RECALLED, FORGOTTEN = "✓", "✗"
_GRADE_STYLE = {Grade.AGAIN: "red", Grade.HARD: "yellow", Grade.GOOD: "green", Grade.EASY: "cyan"}


def session_chart(answers: Sequence[AnswerMark], width: int = CHART_WIDTH) -> Group:
    """The answers in order (✓ recalled, ✗ again), a bar per rating, recalled/missed per tag."""
    width = min(width, CHART_WIDTH)
    bar_cells = max(10, width - LABEL_WIDTH - 18)
    rows = Table.grid(padding=(0, 1))
    rows.add_column(width=LABEL_WIDTH, no_wrap=True, overflow="ellipsis")
    rows.add_column(overflow="fold")
    rows.add_row("in order", answer_marks(answers, limit=3 * (width - LABEL_WIDTH - 1)))
    ratings = Counter(a.grade for a in answers)
    peak = max(ratings.values(), default=1)
    for grade in Grade:
        n = ratings.get(grade, 0)
        bar = Text("█" * round(bar_cells * n / peak), style=_GRADE_STYLE[grade])
        rows.add_row(grade.name.lower(), bar.append(f" {n}", style=""))
    tags = tag_tallies(answers)
    if tags:
        rows.add_row(Text("per tag", style="bold"), Text("█ recalled  ░ again", style="dim"))
        most = max(sum(t) for _, t in tags)
        for tag, (recalled, missed) in tags[:MAX_TAG_ROWS]:
            scale = bar_cells / most
            bar = Text("█" * round(recalled * scale), style="green")
            bar.append("░" * round(missed * scale), style="red")
            bar.append(f" {recalled} of {recalled + missed}", style="")
            rows.add_row(tag, bar)
        if len(tags) > MAX_TAG_ROWS:
            rows.add_row("", Text(f"and {len(tags) - MAX_TAG_ROWS} more tags", style="dim"))
    return Group(Text("this session", style="bold"), rows)


def answer_marks(answers: Sequence[AnswerMark], limit: int) -> Text:
    """One mark per answer, in order; a new card's mark is underlined. A long session shows
    its last `limit` answers, after an ellipsis."""
    marks = Text()
    if len(answers) > limit:
        marks.append("…", style="dim")
        answers = answers[len(answers) - limit + 1 :]
    for a in answers:
        recalled = a.grade != Grade.AGAIN
        style = ("green" if recalled else "red") + (" underline" if a.new else "")
        marks.append(RECALLED if recalled else FORGOTTEN, style=style)
    return marks


def tag_tallies(answers: Sequence[AnswerMark]) -> list[tuple[str, tuple[int, int]]]:
    """(tag, (recalled, again)) per tag answered, most misses first, then most answers."""
    recalled: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    for a in answers:
        for tag in a.tags:
            if a.grade == Grade.AGAIN:
                missed[tag] += 1
            else:
                recalled[tag] += 1
    tags = set(recalled) | set(missed)
    ordered = sorted(tags, key=lambda t: (-missed[t], -(recalled[t] + missed[t]), t))
    return [(t, (recalled[t], missed[t])) for t in ordered]
