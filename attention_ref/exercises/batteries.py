"""The cases each exercise is graded on, drawn afresh for every run from a seed.

A case holds the arguments, the expected outputs (from `solutions`) and its tolerances. Shapes and
the kinds of values are fixed per case, so each case tests one thing (an axis, a tail block, huge
scores, rows far apart); the numbers themselves come from the run's seed, so a submission cannot
recognise the battery and answer it from memory. The seed is reported, so a run can be replayed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import attention_ref.exercises.solutions as solutions
from attention_ref.reference import Array


@dataclass(frozen=True)
class ExerciseCase:
    name: str
    about: str
    args: tuple[Any, ...]
    expected: tuple[Array, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    # Loose enough for a float32 computation of float64 inputs, tight enough for every mistake.
    rtol: float = 2e-5
    atol: float = 1e-6
    # Most bytes the call may allocate at once (None: not measured).
    peak_bytes: int | None = None


Builder = Callable[[np.random.Generator], list[ExerciseCase]]
# Hundreds of rows: code right only on the short cases (a fast path for long sequences that is
# wrong) fails here, even when it is not timed (an exercise card in a session, `--no-time`).
LONG_ABOUT = "hundreds of queries and keys (T_q = 200, T_k = 300), as in real sequences"


def _normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> Array:
    return scale * rng.normal(size=shape)


def _expect(
    name: str, about: str, truth: Callable[..., Any], *args: Any, **kwargs: Any
) -> ExerciseCase:
    extra = {k: kwargs.pop(k) for k in ("rtol", "atol", "peak_bytes") if k in kwargs}
    value = truth(*args, **kwargs)
    expected = tuple(value) if isinstance(value, tuple) else (value,)
    return ExerciseCase(name, about, args, expected, kwargs, **extra)


def softmax_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    far = _normal(rng, 3, 6)
    # Each row is fine on its own. One max for all underflows rows 1 and 3 to 0/0, while no max
    # at all overflows row 2 to inf/inf: the two mistakes leave different rows broken.
    far[1] += 2000.0
    masked = _normal(rng, 3, 5)
    masked[:, -2:] = -np.inf
    return [
        _expect("vector", "one score vector of length 5", solutions.softmax, _normal(rng, 5)),
        _expect("rows", "rows of a 4 × 7 matrix (axis=-1)", solutions.softmax, _normal(rng, 4, 7)),
        _expect(
            "square-rows",
            "rows of a 5 × 5 matrix (x − x.max(axis) without keepdims still runs here)",
            solutions.softmax,
            _normal(rng, 5, 5, scale=3.0),
        ),
        _expect(
            "columns", "axis=0 of a 4 × 3 matrix", solutions.softmax, _normal(rng, 4, 3), axis=0
        ),
        _expect(
            "rank-3-middle",
            "axis=1 of a 2 × 4 × 3 array",
            solutions.softmax,
            _normal(rng, 2, 4, 3),
            axis=1,
        ),
        _expect(
            "huge",
            "scores in the thousands (exp overflows without the max subtraction)",
            solutions.softmax,
            _normal(rng, 3, 4, scale=1000.0),
        ),
        _expect("rows-far-apart", "one row 2000 above the others", solutions.softmax, far),
        _expect("masked", "−∞ in the last two columns (weight 0 there)", solutions.softmax, masked),
        _expect(
            "float32",
            "float32 scores",
            solutions.softmax,
            _normal(rng, 3, 8, scale=4.0).astype(np.float32),
            rtol=1e-4,
            atol=1e-6,
        ),
        _expect(
            "long",
            "rows of a 200 × 300 matrix: long rows",
            solutions.softmax,
            _normal(rng, 200, 300),
        ),
    ]


def _qkv(rng: np.random.Generator, t_q: int, t_k: int, d_k: int, d_v: int) -> tuple[Array, ...]:
    return _normal(rng, t_q, d_k), _normal(rng, t_k, d_k), _normal(rng, t_k, d_v)


def _large_scores(
    rng: np.random.Generator, t_q: int, t_k: int, d_k: int, d_v: int
) -> tuple[Array, ...]:
    """Scores in the hundreds, and for certain one of at least 1000 in every row (in the first
    key, which a causal mask never hides): exp overflows float64 there, whatever the seed."""
    q, k, v = _qkv(rng, t_q, t_k, d_k, d_v)
    q, k = 20.0 * q, 20.0 * k
    q[:, 0] = 40.0
    k[0] = 0.0
    k[0, 0] = 1500.0 * np.sqrt(d_k) / 40.0  # q_i · k_0 / √d_k = 1500 for every query i
    return q, k, v


def attention_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    q32, k32, v32 = (a.astype(np.float32) for a in _qkv(rng, 6, 9, 16, 4))
    return [
        _expect(
            "square", "T_q = T_k = 5, d_k = d_v = 4", solutions.attention, *_qkv(rng, 5, 5, 4, 4)
        ),
        _expect(
            "fewer-queries",
            "T_q = 3 < T_k = 7, d_k = 5, d_v = 2",
            solutions.attention,
            *_qkv(rng, 3, 7, 5, 2),
        ),
        _expect(
            "keys-as-wide-as-long",
            "T_k = d_k = 6 (Q @ K runs without .T)",
            solutions.attention,
            *_qkv(rng, 4, 6, 6, 3),
        ),
        _expect("one-query", "a single query row", solutions.attention, *_qkv(rng, 1, 5, 4, 3)),
        _expect(
            "large-scores",
            "every query has a score of 1000 or more (exp overflows without the max subtraction)",
            solutions.attention,
            *_large_scores(rng, 4, 5, 8, 3),
        ),
        _expect(
            "float32", "float32 inputs", solutions.attention, q32, k32, v32, rtol=1e-4, atol=1e-5
        ),
        _expect("long", LONG_ABOUT, solutions.attention, *_qkv(rng, 200, 300, 32, 16)),
    ]


def causal_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    return [
        _expect("square", "T_q = T_k = 6", solutions.causal_attention, *_qkv(rng, 6, 6, 4, 3)),
        _expect(
            "fewer-queries",
            "T_q = 3 < T_k = 7: query i sees keys 0..i (top-left aligned)",
            solutions.causal_attention,
            *_qkv(rng, 3, 7, 5, 2),
        ),
        _expect(
            "one-token",
            "T = 1: the only query sees the only key",
            solutions.causal_attention,
            *_qkv(rng, 1, 1, 4, 2),
        ),
        _expect(
            "large-scores",
            "every query sees a score of 1000 or more through the mask",
            solutions.causal_attention,
            *_large_scores(rng, 5, 5, 8, 3),
        ),
        _expect("long", LONG_ABOUT, solutions.causal_attention, *_qkv(rng, 200, 300, 16, 8)),
    ]


def _mha_args(rng: np.random.Generator, t: int, d_model: int, n_heads: int) -> tuple[Any, ...]:
    weights = (_normal(rng, d_model, d_model, scale=d_model**-0.5) for _ in range(4))
    return (_normal(rng, t, d_model), *weights, n_heads)


def mha_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    return [
        _expect(
            "two-heads",
            "T = 5, d_model = 8, 2 heads of 4",
            solutions.multi_head_attention,
            *_mha_args(rng, 5, 8, 2),
        ),
        _expect(
            "three-heads",
            "T = 7, d_model = 12, 3 heads of 4",
            solutions.multi_head_attention,
            *_mha_args(rng, 7, 12, 3),
        ),
        _expect(
            "one-head",
            "n_heads = 1 (plain attention with projections)",
            solutions.multi_head_attention,
            *_mha_args(rng, 4, 6, 1),
        ),
        _expect(
            "many-heads",
            "T = 6, d_model = 16, 8 heads of 2",
            solutions.multi_head_attention,
            *_mha_args(rng, 6, 16, 8),
        ),
        _expect(
            "long",
            "T = 200, d_model = 32, 4 heads",
            solutions.multi_head_attention,
            *_mha_args(rng, 200, 32, 4),
        ),
    ]


def backward_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    def args(t_q: int, t_k: int, d_k: int, d_v: int) -> tuple[Array, ...]:
        return (*_qkv(rng, t_q, t_k, d_k, d_v), _normal(rng, t_q, d_v))

    return [
        _expect(
            "rectangular",
            "T_q = 4, T_k = 6, d_k = 5, d_v = 3",
            solutions.attention_backward,
            *args(4, 6, 5, 3),
        ),
        _expect(
            "square",
            "T_q = T_k = 5, d_k = d_v = 4",
            solutions.attention_backward,
            *args(5, 5, 4, 4),
        ),
        _expect("one-query", "a single query row", solutions.attention_backward, *args(1, 4, 3, 2)),
        _expect("long", LONG_ABOUT, solutions.attention_backward, *args(200, 300, 16, 8)),
    ]


def tiled_cases(rng: np.random.Generator) -> list[ExerciseCase]:
    long_q, long_k, long_v = _qkv(rng, 2048, 2048, 16, 16)
    # A full T_q × T_k float64 score matrix is 32 MiB; one key block of 64 is 1 MiB.
    full_matrix = 2048 * 2048 * 8
    rising = _qkv(rng, 8, 200, 8, 4)
    # Keys whose scores grow block after block: the running max changes at every block.
    rising_k = rising[1] + np.linspace(0, 6, 200)[:, None] * rising[0].mean(axis=0)[None, :]
    return [
        _expect(
            "tail-block",
            "T_k = 200 with block = 64 (a short last block)",
            solutions.tiled_attention,
            *_qkv(rng, 5, 200, 8, 4),
        ),
        _expect(
            "small-blocks",
            "block = 16 passed explicitly, T_q = 37, T_k = 150",
            solutions.tiled_attention,
            *_qkv(rng, 37, 150, 6, 5),
            block=16,
        ),
        _expect(
            "rising-max",
            "scores that grow from block to block (the running max keeps changing)",
            solutions.tiled_attention,
            rising[0] * 3.0,
            rising_k,
            rising[2],
        ),
        _expect(
            "one-block",
            "T_k = 40 < block: a single block",
            solutions.tiled_attention,
            *_qkv(rng, 6, 40, 4, 3),
        ),
        _expect(
            "memory",
            "T_q = T_k = 2048, d = 16: the call may not hold a T_q × T_k array (32 MiB)",
            # The same exact attention whatever the block (the submission is called with its
            # default): blocks of 512 keys compute it in a quarter of the time, still in 8 MiB.
            functools.partial(solutions.tiled_attention, block=512),
            long_q,
            long_k,
            long_v,
            peak_bytes=full_matrix // 2,
        ),
    ]


BATTERIES: dict[str, Builder] = {
    "stable-softmax": softmax_cases,
    "attention": attention_cases,
    "causal-attention": causal_cases,
    "multi-head-attention": mha_cases,
    "attention-backward": backward_cases,
    "tiled-attention": tiled_cases,
}


# What each battery's cases are computed with (for the case `cases_for` adds to every battery).
TRUTHS: dict[str, Callable[..., Any]] = {
    "stable-softmax": solutions.softmax,
    "attention": solutions.attention,
    "causal-attention": solutions.causal_attention,
    "multi-head-attention": solutions.multi_head_attention,
    "attention-backward": solutions.attention_backward,
    "tiled-attention": solutions.tiled_attention,
}


def cases_for(battery: str, seed: int) -> list[ExerciseCase]:
    """The battery's cases, then its first case's sizes again with new values: the output must
    follow the values (code that remembers its output by the inputs' shapes returns the old
    one)."""
    rng = np.random.default_rng(seed)
    cases = BATTERIES[battery](rng)
    first = cases[0]
    args = tuple(
        _normal(rng, *a.shape, scale=float(np.std(a)) or 1.0) if isinstance(a, np.ndarray) else a
        for a in first.args
    )
    about = f"the sizes of {first.name} again, new values (the output follows the values)"
    again = _expect(
        f"{first.name}-new-values",
        about,
        TRUTHS[battery],
        *args,
        rtol=first.rtol,
        atol=first.atol,
        **first.kwargs,
    )
    return [*cases, again]
