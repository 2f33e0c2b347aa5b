"""The one bracket scanner every reader of a line uses: what stands outside brackets, and where
a group ends, on balanced, unbalanced and mixed text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checking.reading.brackets import (
    ALL,
    BRACES,
    ROUND,
    ROUND_AND_SQUARE,
    Brackets,
    deepest,
    group_end,
    group_start,
    matching_close,
    matching_open,
    net_depth,
    split_top_level,
    top_level,
    unclosed,
)


def test_a_line_is_split_only_at_separators_outside_brackets() -> None:
    assert split_top_level("E[a=b] = f(x, y) = c", "=") == ["E[a=b] ", " f(x, y) ", " c"]
    assert split_top_level("f(x, y), {a, b}, z", ",") == ["f(x, y)", " {a, b}", " z"]
    assert split_top_level("no separator", ",") == ["no separator"]


def test_braces_count_only_when_asked_for() -> None:
    assert split_top_level("{a, b}, c", ",", ROUND_AND_SQUARE) == ["{a", " b}", " c"]
    assert split_top_level("{a, b}, c", ",", ALL) == ["{a, b}", " c"]


def test_after_a_stray_closing_bracket_nothing_is_at_the_top_level() -> None:
    assert split_top_level("a) = b", "=") == ["a) = b"]
    assert split_top_level("(a = b", "=") == ["(a = b"]
    # any closing bracket closes any opening one, as the readers have always counted
    assert split_top_level("(a] = b", "=") == ["(a] ", " b"]


def test_matches_from_the_end_count_depth_from_the_end() -> None:
    # the comma after a stray `(` is at the top level counted from the end, not from the start
    assert [m.start() for m in top_level(",", "(a, b c", from_end=True)] == [2]
    assert [m.start() for m in top_level(",", "(a, b c")] == []
    assert [m.start() for m in top_level(",", "a, f(b, c), d", from_end=True)] == [10, 1]


def test_a_pattern_separator_and_a_span() -> None:
    relation = re.compile(r"<=|=")
    found = top_level(relation, "x(a<=b) <= y = z")
    assert [m.group() for m in found] == ["<=", "="]
    assert [m.start() for m in top_level("+", "(a+b)+(c+d)", 1, 4)] == [2]


def test_a_group_ends_at_the_bracket_that_closes_it_or_at_a_stop_outside_brackets() -> None:
    text = "sum(f(x), y) + z"
    assert group_end(text, 4) == 11
    assert group_end(text, 4, stops=",") == 8
    assert group_end(text, 0, stops="+") == 13
    assert group_end("a + b", 0) == 5
    assert group_start(text, 11) == 3
    assert group_start("a = f(x, y", 10, stops="=,") == 7
    assert group_start("x", 1) == -1


def test_matching_brackets_of_the_kinds_asked_for() -> None:
    assert matching_close("E[x (y)] z", 1) == 7
    assert matching_close("E[x (y) z", 1) is None
    assert matching_close(r"\frac{a}{b}", 5, BRACES) == 7
    assert matching_open("8 (√(64))", 8, ROUND) == 2
    assert matching_open("a)", 1) is None


def test_depth_the_deepest_point_and_the_brackets_left_open() -> None:
    assert net_depth("f(g(x)") == 1
    assert net_depth("f(g(x)", 2) == 0
    assert deepest("a(b[c{d}])(e)") == 3
    assert deepest(")(") == 0
    assert unclosed("(a (b) [c") == [0, 7]
    assert unclosed(") (a)") == []


# The plain character-by-character definitions the scanner must agree with.
def depth_before(text: str, position: int, start: int, brackets: Brackets) -> int:
    depth = 0
    for char in text[start:position]:
        depth += (char in brackets.opening) - (char in brackets.closing)
    return depth


def plain_edge(text: str, positions: range, inward: str, outward: str, stops: str) -> int:
    """The first of `positions` where a bracket leads out of the scan's groups, or a stop
    stands outside them; -1 if none does."""
    depth = 0
    for position in positions:
        char = text[position]
        if char in inward:
            depth += 1
        elif char in outward or (char in stops and depth == 0):
            if depth == 0:
                return position
            depth -= 1
    return -1


LINES = st.text(alphabet="([{}])=,+ ab", max_size=24)
KINDS = st.sampled_from([ALL, ROUND_AND_SQUARE, ROUND, BRACES])


@settings(max_examples=300, deadline=None)
@given(LINES, KINDS, st.integers(0, 24), st.sampled_from(["", "=", "=,", "+"]))
def test_the_scanner_agrees_with_the_plain_definition(
    text: str, brackets: Brackets, at: int, stops: str
) -> None:
    at = min(at, len(text))
    outside = [
        position
        for position, char in enumerate(text)
        if char in "=," and depth_before(text, position, 0, brackets) == 0
    ]
    assert [m.start() for m in top_level("=,", text, brackets=brackets)] == outside
    from_end = [
        position
        for position, char in enumerate(text)
        if char in "=," and depth_before(text, len(text), position + 1, brackets) == 0
    ]
    found = top_level("=,", text, brackets=brackets, from_end=True)
    assert [m.start() for m in found] == from_end[::-1]
    assert net_depth(text, at, None, brackets) == depth_before(text, len(text), at, brackets)
    opening, closing = brackets
    end = plain_edge(text, range(at, len(text)), opening, closing, stops)
    assert group_end(text, at, brackets, stops) == (len(text) if end < 0 else end)
    start = plain_edge(text, range(at - 1, -1, -1), closing, opening, stops)
    assert group_start(text, at, brackets, stops) == start
