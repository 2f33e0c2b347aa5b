"""A terminal heatmap of attention weights: one shaded cell per (query, key), value inside.

Every cell is four columns wide, so a 16 x 16 map with its row labels takes 68 columns. In colour
the cell's background carries the weight; without colour (NO_COLOR, a pipe, a dumb terminal) a
shade glyph in front of the number carries it instead, so the picture reads either way. Weights
are shown to two decimals (`.97`, `1.0`); `·` marks a weight that is exactly 0, as a causal mask
leaves above the diagonal.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.style import Style
from rich.text import Text

CELL = 4
LABEL = 4
# Shade glyphs and the upper bound of the weights each stands for (the last takes the rest).
GLYPHS = (" ", "░", "▒", "▓", "█")
GLYPH_BOUNDS = (0.1, 0.3, 0.6, 0.9)
# A sequential ramp, dark to light (viridis' anchors), interpolated linearly between stops.
RAMP = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
ZERO_MARK = "·"


def uses_color(console: Console) -> bool:
    """Whether shading by background colour will show; otherwise glyphs do the shading."""
    return console.color_system is not None and not console.no_color


def heatmap_width(columns: int) -> int:
    return LABEL + CELL * columns


def cell_label(weight: float) -> str:
    """Three characters: `  ·` for exactly 0, `1.0` from 0.995 on, else `.dd`."""
    if weight == 0.0:
        return f"  {ZERO_MARK}"
    hundredths = round(weight * 100)
    return "1.0" if hundredths >= 100 else f".{hundredths:02d}"


def glyph(weight: float) -> str:
    for mark, bound in zip(GLYPHS, GLYPH_BOUNDS, strict=False):
        if weight < bound:
            return mark
    return GLYPHS[-1]


def ramp_color(weight: float) -> tuple[int, int, int]:
    """The RGB colour of a weight in [0, 1] on RAMP."""
    position = min(max(weight, 0.0), 1.0) * (len(RAMP) - 1)
    low = min(int(position), len(RAMP) - 2)
    t = position - low
    a, b = RAMP[low], RAMP[low + 1]
    red, green, blue = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return red, green, blue


def cell_style(weight: float) -> Style:
    red, green, blue = ramp_color(weight)
    # Dark text on the light end of the ramp, light text on the dark end.
    luminance = 0.299 * red + 0.587 * green + 0.114 * blue
    text = "black" if luminance > 140 else "white"
    return Style.parse(f"{text} on rgb({red},{green},{blue})")


def render_heatmap(
    weights: Iterable[Iterable[float]],
    *,
    title: str,
    color: bool,
    row_name: str = "q",
    column_name: str = "k",
) -> Text:
    """The map as rich Text: a title line, a header of column names, one line per row.

    `weights` holds values in [0, 1] (attention weights); rows may have any equal length.
    """
    rows = [[float(w) for w in row] for row in weights]
    columns = len(rows[0]) if rows else 0
    if any(len(row) != columns for row in rows):
        raise ValueError("a heatmap needs rows of equal length")
    if any(not -1e-9 <= w <= 1 + 1e-9 for row in rows for w in row):
        raise ValueError("a weights heatmap shows values in [0, 1]")
    out = Text(no_wrap=True, overflow="crop")
    out.append(title + "\n", style="bold" if color else "")
    out.append(" " * LABEL)
    for j in range(columns):
        out.append(f"{column_name}{j + 1}".rjust(CELL))
    for i, row in enumerate(rows):
        out.append("\n" + f"{row_name}{i + 1}".ljust(LABEL))
        for w in row:
            label = cell_label(w)
            if not color:
                out.append(glyph(w) + label)
            elif w == 0.0:
                out.append(" " + label, style="dim")
            else:
                out.append(" " + label, style=cell_style(w))
    return out


def heatmap_legend(*, color: bool, zeros: bool = False) -> Text:
    """How to read the shading; `zeros` adds the meaning of `·`."""
    legend = Text(no_wrap=True, overflow="crop")
    if color:
        legend.append("weight  0 ")
        for step in range(11):
            legend.append("  ", style=cell_style(step / 10))
        legend.append(" 1")
    else:
        legend.append("shade:")
        lower = 0.0
        for mark, bound in zip(GLYPHS, GLYPH_BOUNDS, strict=False):
            legend.append(f"  '{mark}' {_short(lower)}-{_short(bound)}")
            lower = bound
        legend.append(f"  '{GLYPHS[-1]}' ≥{_short(lower)}")
    if zeros:
        legend.append(f"   {ZERO_MARK} exactly 0")
    return legend


def _short(x: float) -> str:
    return "0" if x == 0 else f"{x:.2f}".lstrip("0")


def side_by_side(left: Text, right: Text, gap: int = 4) -> Text:
    """Two maps next to each other, line by line (each already fixed-width)."""
    left_lines, right_lines = left.split("\n"), right.split("\n")
    width = max((line.cell_len for line in left_lines), default=0)
    joined = Text(no_wrap=True, overflow="crop")
    for index in range(max(len(left_lines), len(right_lines))):
        if index:
            joined.append("\n")
        line = left_lines[index] if index < len(left_lines) else Text()
        joined.append_text(line)
        joined.append(" " * (width - line.cell_len + gap))
        if index < len(right_lines):
            joined.append_text(right_lines[index])
    return joined
