"""The terminal heatmap: readable values, shading with or without colour, 80 columns at T = 16."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from engine.ui.heatmap import (
    CELL,
    LABEL,
    cell_label,
    glyph,
    heatmap_legend,
    ramp_color,
    render_heatmap,
    side_by_side,
    uses_color,
)

ANSI = "\x1b"


def sixteen_rows() -> np.ndarray:
    rng = np.random.default_rng(3)
    weights = rng.dirichlet(np.full(16, 0.3), size=16)
    weights[0] = np.eye(16)[5]  # one-hot
    weights[1] = 1 / 16  # uniform
    return weights


def printed(renderable: Text, console: Console) -> str:
    console.print(renderable)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def wide_console(**options: object) -> Console:
    # Wider than needed, so that nothing is cropped and the real width can be measured.
    return Console(file=io.StringIO(), width=200, **options)  # type: ignore[arg-type]


def visible(text: str) -> list[str]:
    return Text.from_ansi(text).plain.splitlines()


@pytest.mark.parametrize(
    ("weight", "label"),
    [(0.0, "  ·"), (1.0, "1.0"), (0.996, "1.0"), (0.97, ".97"), (0.05, ".05"), (0.004, ".00")],
)
def test_cell_labels_are_three_readable_characters(weight: float, label: str) -> None:
    assert cell_label(weight) == label


def test_glyphs_darken_with_the_weight() -> None:
    marks = " ░▒▓█"
    levels = [marks.index(glyph(w)) for w in np.linspace(0, 1, 101)]
    assert levels == sorted(levels)
    assert glyph(0.02) == " " and glyph(0.95) == "█"


def test_colour_ramp_gets_lighter_with_the_weight() -> None:
    lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in map(ramp_color, np.linspace(0, 1, 21))]
    assert lum == sorted(lum)
    assert lum[-1] - lum[0] > 150


def test_no_color_heatmap_has_no_ansi_and_fits_80_columns() -> None:
    console = Console(file=io.StringIO(), width=200, force_terminal=True)  # NO_COLOR is set
    assert not uses_color(console)
    out = printed(render_heatmap(sixteen_rows(), title="weights", color=False), console)
    assert ANSI not in out
    assert max(cell_len(line) for line in out.splitlines()) <= 80


def test_no_color_cells_carry_a_shade_glyph_and_the_value() -> None:
    weights = sixteen_rows()
    out = printed(render_heatmap(weights, title="w", color=False), wide_console())
    lines = out.splitlines()
    assert lines[0] == "w"
    assert lines[1].split() == [f"k{j}" for j in range(1, 17)]
    for i, line in enumerate(lines[2:]):
        assert line[:LABEL].strip() == f"q{i + 1}"
        cells = [line[LABEL + CELL * j : LABEL + CELL * (j + 1)] for j in range(16)]
        assert cells == [glyph(w) + cell_label(w) for w in weights[i]]
    assert lines[2].count("█") == 1 and "█1.0" in lines[2]  # the one-hot row
    assert "█" not in lines[3] and "░" not in lines[3]  # the uniform row: 1/16 each


def test_colour_heatmap_shades_backgrounds_within_80_columns() -> None:
    console = wide_console(force_terminal=True, color_system="truecolor", no_color=False)
    assert uses_color(console)
    out = printed(render_heatmap(sixteen_rows(), title="weights", color=True), console)
    assert "48;2;" in out  # truecolour backgrounds
    assert max(cell_len(line) for line in visible(out)) <= 80
    assert ".06" in visible(out)[3]  # values stay readable in the shaded cells


def test_exact_zeros_are_marked_and_explained() -> None:
    causal = np.tril(np.ones((4, 4)))
    causal /= causal.sum(axis=1, keepdims=True)
    out = printed(render_heatmap(causal, title="c", color=False), wide_console())
    assert out.splitlines()[2].count("·") == 3
    assert "exactly 0" in heatmap_legend(color=False, zeros=True).plain
    assert "exactly 0" not in heatmap_legend(color=False).plain


@pytest.mark.parametrize("color", [False, True])
def test_legend_fits_80_columns(color: bool) -> None:
    assert heatmap_legend(color=color, zeros=True).cell_len <= 80


def test_two_maps_of_eight_fit_side_by_side() -> None:
    left = render_heatmap(np.full((8, 8), 1 / 8), title="left", color=False)
    right = render_heatmap(np.eye(8), title="right", color=False)
    joined = side_by_side(left, right).plain.splitlines()
    assert len(joined) == 10
    assert max(cell_len(line) for line in joined) <= 80
    assert joined[0].startswith("left") and joined[0].rstrip().endswith("right")
    assert joined[2].endswith("█1.0" + "   ·" * 7)


def test_weights_outside_zero_to_one_or_ragged_rows_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        render_heatmap([[0.5, 1.5]], title="x", color=False)
    with pytest.raises(ValueError, match="equal length"):
        render_heatmap([[0.5, 0.5], [1.0]], title="x", color=False)
