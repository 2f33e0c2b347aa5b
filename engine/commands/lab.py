"""`attnquiz lab scaling`: the same Q, K, V with and without 1/√d_k, drawn in the terminal.

The numbers come from `attention_ref.lab` (itself built on the reference kernel); this module
words them: two heatmaps, a per-row table, a sweep over d_k, a causal map, and a takeaway written
from the numbers. `--json` prints the numbers only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from engine.errors import UsageError
from engine.exit_codes import EXIT_OK
from engine.ui.json_output import print_json

if TYPE_CHECKING:
    from rich.console import Console

    from attention_ref.lab import AttentionRun, ScalingLab

D_K_RANGE = (2, 4096)
TOKENS_RANGE = (2, 16)
WIDTH = 80
DIGITS = 4


def run_lab_scaling(d_k: int, tokens: int, seed: int, as_json: bool) -> int:
    for name, value, (low, high) in (
        ("--d-k", d_k, D_K_RANGE),
        ("--tokens", tokens, TOKENS_RANGE),
    ):
        if not low <= value <= high:
            raise UsageError(f"{name} must be between {low} and {high}, not {value}")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more, not {seed}")
    from attention_ref.lab import scaling_lab

    lab = scaling_lab(d_k, tokens, seed)
    if as_json:
        print_json(lab_json(lab))
    else:
        show(lab)
    return EXIT_OK


def _round(x: float) -> float:
    return round(float(x), DIGITS)


def run_json(run: AttentionRun) -> dict[str, Any]:
    return {
        "weights": [[_round(w) for w in row] for row in run.weights],
        "row_entropy": [_round(h) for h in run.row_entropy],
        "row_max": [_round(m) for m in run.row_max],
        "score_std": _round(run.score_std),
    }


def lab_json(lab: ScalingLab) -> dict[str, Any]:
    return {
        "lab": "scaling",
        "d_k": lab.d_k,
        "sqrt_d_k": _round(math.sqrt(lab.d_k)),
        "tokens": lab.tokens,
        "seed": lab.seed,
        "entropy_unit": "nats",
        "uniform_entropy": _round(lab.uniform_entropy),
        "scaled": run_json(lab.scaled),
        "unscaled": run_json(lab.unscaled),
        "causal": run_json(lab.causal),
        "sweep": [
            {
                "d_k": row.d_k,
                "sqrt_d_k": _round(math.sqrt(row.d_k)),
                "samples": row.samples,
                "std_unscaled": _round(row.std_unscaled),
                "std_scaled": _round(row.std_scaled),
                "mean_entropy_scaled": _round(row.mean_entropy_scaled),
                "mean_entropy_unscaled": _round(row.mean_entropy_unscaled),
                "mean_max_scaled": _round(row.mean_max_scaled),
                "mean_max_unscaled": _round(row.mean_max_unscaled),
            }
            for row in lab.sweep
        ],
        "takeaway": takeaway(lab),
    }


def peakedness(entropy_share: float) -> str:
    """Words for a mean row entropy given as a share of the uniform maximum ln T."""
    if entropy_share <= 0.1:
        return "nearly one-hot: each query all but copies a single value row"
    if entropy_share <= 0.25:
        return "close to one-hot: most queries put almost all their weight on one key"
    if entropy_share <= 0.5:
        return "clearly peaked on one key"
    return "still spread out: at this small d_k the scale changes little"


def takeaway(lab: ScalingLab) -> str:
    """One paragraph, worded from the sweep's stable numbers at the chosen d_k."""
    row = lab.sweep_row(lab.d_k)
    first, last = lab.sweep[0], lab.sweep[-1]
    scaled_maxes = [r.mean_max_scaled for r in lab.sweep]
    share = row.mean_entropy_unscaled / lab.uniform_entropy
    text = (
        f"At d_k = {lab.d_k} the raw scores Q·K have std {row.std_unscaled:.2f}, close to "
        f"√{lab.d_k} = {math.sqrt(lab.d_k):.2f}, and softmax exponentiates the gaps between them. "
        f"Without the 1/√d_k factor the mean max weight is {row.mean_max_unscaled:.2f} and the "
        f"mean row entropy {row.mean_entropy_unscaled:.2f} nats (a uniform row has "
        f"ln {lab.tokens} = {lab.uniform_entropy:.2f}), so the rows are {peakedness(share)}. "
        f"With it the scores have std {row.std_scaled:.2f}, the mean max weight is "
        f"{row.mean_max_scaled:.2f} and the entropy {row.mean_entropy_scaled:.2f} nats. "
        f"From d_k = {first.d_k} to {last.d_k} the scaled mean max weight stays between "
        f"{min(scaled_maxes):.2f} and {max(scaled_maxes):.2f}, while the unscaled one goes from "
        f"{first.mean_max_unscaled:.2f} to {last.mean_max_unscaled:.2f}"
    )
    if share <= 0.25:
        text += (
            "; a nearly one-hot row passes almost no gradient, since "
            "∂p_i/∂s_j = p_i(δ_ij − p_j) is close to 0 for every j."
        )
    else:
        text += "."
    return text


def show(lab: ScalingLab) -> None:
    from rich.text import Text

    from engine.ui.console import make_console
    from engine.ui.heatmap import (
        heatmap_legend,
        heatmap_width,
        render_heatmap,
        side_by_side,
        uses_color,
    )

    console = make_console()
    console.width = min(console.width, WIDTH)
    color = uses_color(console)
    t, d_k, root = lab.tokens, lab.d_k, math.sqrt(lab.d_k)
    console.print(
        Text.assemble(
            ("Why divide by √d_k", "bold" if color else ""),
            f": T = {t} tokens, d_k = {d_k}, seed {lab.seed}; Q, K, V entries ~ N(0, 1)",
        )
    )
    console.print()
    with_scale = render_heatmap(lab.scaled.weights, title="softmax(Q Kᵀ / √d_k)", color=color)
    without = render_heatmap(lab.unscaled.weights, title="softmax(Q Kᵀ), no scale", color=color)
    if 2 * heatmap_width(t) + 4 <= console.width:
        console.print(side_by_side(with_scale, without))
    else:
        console.print(with_scale)
        console.print()
        console.print(without)
    console.print(heatmap_legend(color=color))
    console.print()
    console.print(
        f"This draw's scores S = Q Kᵀ: std {lab.unscaled.score_std:.2f} "
        f"(√d_k = {root:.2f}); S/√d_k: std {lab.scaled.score_std:.2f}."
    )
    console.print()
    show_rows(console, lab, color)
    console.print()
    show_sweep(console, lab, color)
    console.print()
    console.print(render_heatmap(lab.causal.weights, title="causal mask, with 1/√d_k", color=color))
    console.print(heatmap_legend(color=color, zeros=True))
    console.print("Query i sees keys 1..i only: everything above the diagonal is exactly 0.")
    console.print()
    console.print(takeaway(lab))


def show_rows(console: Console, lab: ScalingLab, color: bool) -> None:
    from rich.table import Table

    console.print(
        f"Per query: row entropy H in nats (uniform ln {lab.tokens} = "
        f"{lab.uniform_entropy:.2f}, one-hot 0), largest weight."
    )
    table = Table(box=None, header_style="bold", pad_edge=False)
    for header in ("query", "H with √d_k", "H without", "max with", "max without"):
        table.add_column(header, justify="right")
    rows = zip(
        lab.scaled.row_entropy,
        lab.unscaled.row_entropy,
        lab.scaled.row_max,
        lab.unscaled.row_max,
        strict=True,
    )
    for index, (h_with, h_without, m_with, m_without) in enumerate(rows, start=1):
        table.add_row(
            f"q{index}", f"{h_with:.2f}", f"{h_without:.2f}", f"{m_with:.2f}", f"{m_without:.2f}"
        )
    table.add_row(
        "mean",
        f"{lab.scaled.row_entropy.mean():.2f}",
        f"{lab.unscaled.row_entropy.mean():.2f}",
        f"{lab.scaled.row_max.mean():.2f}",
        f"{lab.unscaled.row_max.mean():.2f}",
        style="bold" if color else "",
    )
    console.print(table)


def show_sweep(console: Console, lab: ScalingLab, color: bool) -> None:
    from rich.table import Table

    trials = lab.sweep[0].samples // lab.tokens**2
    console.print(
        f"Over d_k: {trials} fresh draws of {lab.tokens} × {lab.tokens} scores "
        f"({lab.sweep[0].samples} per d_k)."
    )
    console.print("H: mean row entropy in nats; max: mean largest weight.")
    table = Table(box=None, header_style="bold", pad_edge=False)
    for header in ("d_k", "√d_k", "std S", "std S/√d_k", "H with", "H w/o", "max with", "max w/o"):
        table.add_column(header, justify="right")
    for row in lab.sweep:
        table.add_row(
            str(row.d_k),
            f"{math.sqrt(row.d_k):.2f}",
            f"{row.std_unscaled:.2f}",
            f"{row.std_scaled:.3f}",
            f"{row.mean_entropy_scaled:.2f}",
            f"{row.mean_entropy_unscaled:.2f}",
            f"{row.mean_max_scaled:.2f}",
            f"{row.mean_max_unscaled:.2f}",
            style="bold" if row.d_k == lab.d_k and color else "",
        )
    console.print(table)
