"""The cases a submission is called on: small hand-checkable ones and the ones that catch mistakes.

Every case is generated from a seed, so a report can be reproduced; the expected outputs come
from `attention_ref.reference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attention_ref.reference import Array, attention, causal_mask, stable_softmax


@dataclass(frozen=True)
class Case:
    name: str
    about: str
    args: tuple[Array, ...]
    expected: Array
    expected_weights: Array | None = None
    # A causal mask in both conventions; the code's own convention is found by trying both.
    masks: tuple[Array, ...] = ()
    rtol: float = 1e-4
    atol: float = 1e-6
    kwargs: dict[str, Any] = field(default_factory=dict)


def _qkv(
    rng: np.random.Generator,
    t_q: int,
    t_k: int,
    d_k: int,
    d_v: int,
    scale: float = 1.0,
    dtype: Any = np.float64,
) -> tuple[Array, Array, Array]:
    q = (scale * rng.normal(size=(t_q, d_k))).astype(dtype)
    k = (scale * rng.normal(size=(t_k, d_k))).astype(dtype)
    v = rng.normal(size=(t_k, d_v)).astype(dtype)
    return q, k, v


def _case(name: str, about: str, q: Array, k: Array, v: Array, **kw: Any) -> Case:
    out, weights = attention(q, k, v, return_weights=True)
    return Case(name, about, (q, k, v), out, weights, **kw)


def attention_cases(seed: int = 15, *, with_mask: bool = False) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = [
        _case(
            "identity-3x3",
            "Q = K = I₃, V 3×2: the worked example",
            np.eye(3),
            np.eye(3),
            np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ),
        _case(
            "one-query",
            "one query against three keys (T_q = 1, T_k = 3, d = 2)",
            np.array([[1.0, 0.0]]),
            np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        ),
        _case("fewer-queries", "T_q = 4 < T_k = 7, d_k = 5, d_v = 3", *_qkv(rng, 4, 7, 5, 3)),
        _case("more-queries", "T_q = 9 > T_k = 4, d_k = 6, d_v = 2", *_qkv(rng, 9, 4, 6, 2)),
        _case(
            "square-keys",
            "T_k = d_k = 8 (where Q @ K without .T still runs), T_q = 6, d_v = 5",
            *_qkv(rng, 6, 8, 8, 5, scale=1.5),
        ),
        _large_scores(rng),
        _case(
            "float32",
            "float32 inputs, T_q = 12, T_k = 10, d_k = 16, d_v = 8",
            *_qkv(rng, 12, 10, 16, 8, dtype=np.float32),
            rtol=2e-4,
            atol=1e-5,
        ),
    ]
    if with_mask:
        q, k, v = _qkv(rng, 6, 6, 4, 3)
        out, weights = attention(q, k, v, causal=True, return_weights=True)
        masks = (causal_mask(6, 6), causal_mask(6, 6, boolean=True))
        cases.append(
            Case(
                "causal-mask",
                "a causal mask, T = 6: query i sees keys 0..i",
                (q, k, v),
                out,
                weights,
                masks=masks,
            )
        )
    return cases


def _large_scores(rng: np.random.Generator) -> Case:
    """Scores near 1000: exp overflows in float64 unless the max is subtracted first."""
    q, k, v = _qkv(rng, 5, 6, 16, 4)
    k[2] = q[0] * 60.0  # one key aligned with query 0 gives it a huge score
    q *= 12.0
    out, weights = attention(q, k, v, return_weights=True)
    return Case(
        "large-scores",
        "scores up to about 1000 (exp overflows without subtracting the max)",
        (q, k, v),
        out,
        weights,
        rtol=1e-3,
        atol=1e-5,
    )


def softmax_cases(seed: int = 15) -> list[Case]:
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(4, 5)) * 2

    def case(name: str, about: str, scores: Array, **kw: Any) -> Case:
        return Case(name, about, (scores,), stable_softmax(scores, axis=-1), **kw)

    return [
        case(
            "seed-scores", "softmax([2, 1, 0.1]) ≈ [0.659, 0.242, 0.099]", np.array([2.0, 1.0, 0.1])
        ),
        case("one-hot-ish", "softmax([0, 0, 10])", np.array([0.0, 0.0, 10.0])),
        case("rows", "a 4×5 score matrix: each row sums to 1", rows),
        case(
            "large",
            "scores 1000, 999, 0 (exp overflows without the max)",
            np.array([1000.0, 999.0, 0.0]),
        ),
        case("large-rows", "rows of scores near 800", rows * 10 + 800, rtol=1e-3),
        case("float32", "float32 scores", rows.astype(np.float32), rtol=2e-4, atol=1e-6),
    ]
