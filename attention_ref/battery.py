"""The cases a submission is called on: small hand-checkable ones and the ones that catch mistakes.

Sizes and values are drawn afresh from a seed that changes with every run (the report carries
it, so a run can be reproduced): code that recognises a fixed battery cannot pass. The expected
outputs come from `attention_ref.reference`. Cases are written 2-D; `in_form` lifts one to the
batched form the submission is written for, (B, T, d) or (B, H, T, d).

A battery is a pure function of its seed, so each is built once per process (the probe and the
battery of one grading, or many files graded with one seed, share it): its arrays are read-only,
and each case keeps what is computed from it alone (its batched forms, what each classic mistake
outputs on it) in `memo`.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from attention_ref.reference import Array, attention, stable_softmax


@dataclass(frozen=True)
class Case:
    name: str
    about: str
    args: tuple[Array, ...]
    expected: Array
    expected_weights: Array | None = None
    rtol: float = 1e-4
    atol: float = 1e-6
    causal: bool = False  # the expected output masks the future (query i sees keys j <= i)
    rank: int = 2
    # What is computed from this case alone, kept for the next submission graded on it (not
    # passed on by `replace`: a lifted or altered case starts with its own).
    memo: dict[Any, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )


def fresh_seed() -> int:
    return secrets.randbelow(2**31)


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
    out, weights = attention(q, k, v, causal=kw.get("causal", False), return_weights=True)
    return Case(name, about, (q, k, v), out, weights, **kw)


def attention_cases(seed: int, *, causal_only: bool = False, with_mask: bool = False) -> list[Case]:
    """The attention battery; `causal_only` for code that masks the future by itself."""
    return list(_attention_battery(seed, causal_only, with_mask))


@functools.lru_cache(maxsize=16)
def _attention_battery(seed: int, causal_only: bool, with_mask: bool) -> tuple[Case, ...]:
    return _frozen(_draw_attention_cases(seed, causal_only, with_mask))


def _frozen(cases: list[Case]) -> tuple[Case, ...]:
    """The cases with every array read-only: they are shared by every grading of this seed."""
    for case in cases:
        for array in (*case.args, case.expected, case.expected_weights):
            if array is not None:
                array.setflags(write=False)
    return tuple(cases)


def _draw_attention_cases(seed: int, causal_only: bool, with_mask: bool) -> list[Case]:
    rng = np.random.default_rng(seed)
    size = lambda low, high: int(rng.integers(low, high + 1))  # noqa: E731
    t_k, d_k = size(6, 9), size(3, 5)
    d_sq = size(5, 8)
    t_sq = size(5, 8)
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
            "a single query row (T_q = 1): the output keeps its shape (1, d_v)",
            *_qkv(rng, 1, size(3, 6), size(2, 5), size(2, 4)),
        ),
        _case(
            "fewer-queries",
            f"T_q < T_k = {t_k}, d_k = {d_k}",
            *_qkv(rng, size(2, t_k - 2), t_k, d_k, size(2, 4)),
        ),
        _case("more-queries", "T_q > T_k, d_k ≠ d_v", *_qkv(rng, size(8, 11), 4, 6, 3)),
        _case(
            "square-keys",
            f"T_k = d_k = {d_sq} (where Q @ K without .T still runs)",
            *_qkv(rng, size(3, 7), d_sq, d_sq, size(2, 5), scale=1.5),
        ),
        _square_scores(rng, t_sq),
        _large_scores(rng),
        _far_apart_rows(rng),
        _case(
            "float32",
            "float32 inputs",
            *_qkv(rng, size(9, 13), size(7, 11), 16, 8, dtype=np.float32),
            rtol=2e-4,
            atol=1e-5,
        ),
        _long_sequence(rng),
    ]
    cases.append(_new_values(rng, cases[2]))
    if with_mask or causal_only:
        t = size(5, 8)
        cases.append(
            _case(
                "causal-mask",
                f"a causal mask, T = {t}: query i sees keys 0..i",
                *_qkv(rng, t, t, size(3, 5), size(2, 4), scale=1.5),
                causal=True,
            )
        )
    if causal_only:
        cases = [_as_causal(c) for c in cases if c.args[0].shape[0] == c.args[1].shape[0]]
        t = size(6, 9)
        cases += [
            _case(
                "causal-large",
                f"T = {t}, scores in the hundreds",
                *_qkv(rng, t, t, 16, 3, 6.0),
                causal=True,
                rtol=1e-3,
                atol=1e-5,
            ),
            _case(
                "causal-float32",
                f"T = {t}, float32",
                *_qkv(rng, t, t, 8, 4, dtype=np.float32),
                causal=True,
                rtol=2e-4,
                atol=1e-5,
            ),
        ]
    return cases


def _as_causal(case: Case) -> Case:
    if case.causal:
        return case
    q, k, v = case.args
    about = case.about + ", causal"
    return _case(case.name, about, q, k, v, causal=True, rtol=case.rtol, atol=case.atol)


def _square_scores(rng: np.random.Generator, t: int) -> Case:
    """T_q = T_k with rows far from each other: `x - x.max(axis=-1)` without keepdims still runs."""
    q, k, v = _qkv(rng, t, t, 4, 3)
    q *= np.linspace(0.5, 4.0, t)[:, None]
    return _case("square-scores", f"T_q = T_k = {t}, rows of different sizes", q, k, v)


def _large_scores(rng: np.random.Generator) -> Case:
    """Scores near 1000: exp overflows in float64 unless the max is subtracted first. The last
    query's scores stay small: code that overflows must still get that row right."""
    q, k, v = _qkv(rng, 6, 6, 16, 4)
    k[2] = q[0] * 60.0  # one key aligned with query 0 gives it a huge score
    q[:5] *= 12.0
    q[5] -= (q[5] @ q[0]) / (q[0] @ q[0]) * q[0]  # orthogonal to the huge key
    return _case(
        "large-scores",
        "scores up to about 1000 (exp overflows without subtracting the max), one query's small",
        q,
        k,
        v,
        rtol=1e-3,
        atol=1e-5,
    )


def _far_apart_rows(rng: np.random.Generator) -> Case:
    """One row of scores near +400, another near -400: one global max underflows the second."""
    d = 8
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    k = np.outer(rng.uniform(1.0, 2.0, size=6), u) + 0.01 * rng.normal(size=(6, d))
    q = np.stack([400 * np.sqrt(d) * u, -400 * np.sqrt(d) * u, rng.normal(size=d)])
    v = rng.normal(size=(6, 3))
    return _case(
        "far-apart-rows",
        "one query's scores near +600, another's near -600 (one global max underflows the rest)",
        q,
        k,
        v,
        rtol=1e-3,
        atol=1e-5,
    )


def _new_values(rng: np.random.Generator, earlier: Case) -> Case:
    """An earlier case's sizes with new values, called after it: the output must follow the
    inputs' values (code that remembers its output by the inputs' shapes returns the old one)."""
    q, k, v = (rng.normal(size=a.shape) for a in earlier.args)
    about = f"the sizes of {earlier.name} again, new values (the output follows the values)"
    return _case(f"{earlier.name}-new-values", about, q, k, v)


def _long_sequence(rng: np.random.Generator) -> Case:
    """More queries and keys than the tile sizes blocked code is written with (16 to 128, as a
    default parameter or a module constant), and a multiple of none of them: every other case
    fits in one tile, where an online softmax that never rescales is still exact."""
    t = 16 * int(rng.integers(8, 13)) + int(rng.integers(1, 16))
    q, k, v = _qkv(rng, t, t, int(rng.integers(3, 7)), int(rng.integers(2, 5)), scale=2.0)
    return _case("long-sequence", f"T_q = T_k = {t}: longer than a tile of keys", q, k, v)


def in_form(case: Case, rank: int) -> Case:
    """The case as a batch: (2, T, d) or (2, 2, T, d), each entry a different problem."""
    if rank == case.rank:
        return case
    key = ("in_form", rank)
    if key not in case.memo:
        case.memo[key] = _frozen([_lifted(case, rank)])[0]
    lifted: Case = case.memo[key]
    return lifted


def _lifted(case: Case, rank: int) -> Case:

    def flipped(a: Array) -> Array:
        return a[::-1].copy()

    q, k, v = case.args
    variants = [(q, k, v), (flipped(q), flipped(k), flipped(v))]
    if rank == 3:
        stacked = [np.stack([var[i] for var in variants]) for i in range(3)]
    else:
        order = [[0, 1], [1, 0]]
        stacked = [
            np.stack([np.stack([variants[j][i] for j in row]) for row in order]) for i in range(3)
        ]
    out, weights = attention(*stacked, causal=case.causal, return_weights=True)
    return replace(case, args=tuple(stacked), expected=out, expected_weights=weights, rank=rank)


def softmax_cases(seed: int, *, vectors_only: bool = False) -> list[Case]:
    return list(_softmax_battery(seed, vectors_only))


@functools.lru_cache(maxsize=16)
def _softmax_battery(seed: int, vectors_only: bool) -> tuple[Case, ...]:
    return _frozen(_draw_softmax_cases(seed, vectors_only))


def _draw_softmax_cases(seed: int, vectors_only: bool) -> list[Case]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 9))
    rows = rng.normal(size=(int(rng.integers(3, 6)), n)) * 2

    def case(name: str, about: str, scores: Array, **kw: Any) -> Case:
        return Case(name, about, (scores,), stable_softmax(scores, axis=-1), **kw)

    square = rng.normal(size=(n, n)) * np.linspace(0.5, 6.0, n)[:, None]
    far = np.stack([rng.normal(size=n) + 700, rng.normal(size=n) - 700, rng.normal(size=n)])
    vectors = [
        case("seed-scores", "softmax([2, 1, 0.1]) ≈ [0.659, 0.242, 0.099]", np.array([2, 1, 0.1])),
        case("one-hot-ish", "softmax([0, 0, 10])", np.array([0.0, 0.0, 10.0])),
        case("vector", f"{n} random scores", rng.normal(size=n) * 3),
        case(
            "large",
            "scores 1000, 999, 0 (exp overflows without the max)",
            np.array([1000.0, 999.0, 0.0]) + rng.uniform(0, 5),
        ),
    ]
    if vectors_only:
        return vectors
    return [
        *vectors,
        case("rows", "a score matrix: each row sums to 1", rows),
        case("one-row", "a single row (1, n): the shape is kept", rows[:1]),
        case("square-rows", "an n×n matrix with rows of different sizes", square),
        case("large-rows", "rows of scores near 800", rows * 10 + 800, rtol=1e-3),
        case(
            "wide-row",
            "one row spanning 0 to 2000 beside an ordinary one (exp of half the spread overflows)",
            np.stack([np.linspace(0.0, 2000.0, n) + rng.uniform(0, 5), rows[0]]),
            rtol=1e-3,
        ),
        case("far-apart-rows", "rows near +700 and -700 (a single global max fails)", far),
        case("float32", "float32 scores", rows.astype(np.float32), rtol=2e-4, atol=1e-6),
    ]
