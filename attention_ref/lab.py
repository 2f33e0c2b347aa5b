"""The numbers of the scaling lab: why attention divides Q Kᵀ by √d_k.

With Q and K drawn i.i.d. N(0, 1), each score q·k has standard deviation √d_k. Without the
1/√d_k factor, softmax sees ever wider gaps as d_k grows and its rows collapse towards one-hot;
with it, the scores keep unit spread whatever d_k is. Everything here is a pure function of
(d_k, tokens, seed): the same seed gives the same numbers, and every weight comes from
`attention_ref.reference`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_ref.reference import Array, attention, stable_softmax

SWEEP_D_K = (4, 16, 64, 256, 1024)
# Scores per d_k in the sweep: enough that the std is good to about 1 % at every d_k.
SWEEP_SCORES = 16_384
# Trials are drawn in chunks of at most this many numbers per matrix, to bound memory at d_k = 4096.
CHUNK_NUMBERS = 1 << 20


@dataclass(frozen=True)
class AttentionRun:
    """One attention pass on the displayed Q, K, V: its weights and how peaked each row is."""

    weights: Array  # (T, T), rows sum to 1
    row_entropy: Array  # (T,), nats
    row_max: Array  # (T,)
    score_std: float  # std of the T x T scores that went into softmax


@dataclass(frozen=True)
class SweepRow:
    """Averages over many seeded T x T draws at one d_k."""

    d_k: int
    samples: int  # scores the std is estimated from
    std_unscaled: float  # std of Q Kᵀ, about √d_k
    std_scaled: float  # std of Q Kᵀ / √d_k, about 1
    mean_entropy_scaled: float
    mean_entropy_unscaled: float
    mean_max_scaled: float
    mean_max_unscaled: float


@dataclass(frozen=True)
class ScalingLab:
    d_k: int
    tokens: int
    seed: int
    scaled: AttentionRun
    unscaled: AttentionRun
    causal: AttentionRun  # scaled, with the causal mask
    sweep: tuple[SweepRow, ...]

    @property
    def uniform_entropy(self) -> float:
        """The most a row can have: ln T nats, when every key gets 1/T."""
        return math.log(self.tokens)

    def sweep_row(self, d_k: int) -> SweepRow:
        return next(row for row in self.sweep if row.d_k == d_k)


def row_entropy(weights: Array) -> Array:
    """−Σ_j p_j ln p_j over the last axis, in nats, with 0 ln 0 = 0 (masked keys count nothing)."""
    p = np.asarray(weights, dtype=np.float64)
    positive = p > 0
    logs = np.log(np.where(positive, p, 1.0))
    return -np.sum(np.where(positive, p * logs, 0.0), axis=-1)


def draw_qkv(tokens: int, d_k: int, seed: int) -> tuple[Array, Array, Array]:
    """The displayed Q, K, V: (T, d_k) each, entries i.i.d. N(0, 1)."""
    rng = np.random.default_rng([seed, d_k, tokens])
    q, k, v = rng.standard_normal((3, tokens, d_k))
    return q, k, v


def run_once(q: Array, k: Array, v: Array, *, scaled: bool, causal: bool = False) -> AttentionRun:
    """Attention weights with or without the 1/√d_k factor, and their per-row summary."""
    d_k = q.shape[-1]
    if scaled:
        _, weights = attention(q, k, v, causal=causal, return_weights=True)
        scores = q @ k.T / math.sqrt(d_k)
    else:
        if causal:
            raise ValueError("the lab draws the causal mask with the scale only")
        scores = q @ k.T
        weights = stable_softmax(scores, axis=-1)
    return AttentionRun(
        weights=weights,
        row_entropy=row_entropy(weights),
        row_max=weights.max(axis=-1),
        score_std=float(scores.std()),
    )


def sweep_trials(tokens: int) -> int:
    """How many T x T draws make up SWEEP_SCORES scores (at least 64, for the row averages)."""
    return max(64, math.ceil(SWEEP_SCORES / tokens**2))


def sweep_at(d_k: int, tokens: int, seed: int) -> SweepRow:
    """Draw many independent T x T score matrices at `d_k` and summarise both softmaxes.

    Each d_k has its own random stream, so adding a d_k to the sweep changes no other row.
    """
    rng = np.random.default_rng([seed, d_k, tokens, 1])
    trials = sweep_trials(tokens)
    per_chunk = max(1, CHUNK_NUMBERS // (tokens * d_k))
    total, sum_sq = 0.0, 0.0
    entropy = {True: 0.0, False: 0.0}
    peak = {True: 0.0, False: 0.0}
    done = 0
    while done < trials:
        n = min(per_chunk, trials - done)
        q = rng.standard_normal((n, tokens, d_k))
        k = rng.standard_normal((n, tokens, d_k))
        scores = q @ np.swapaxes(k, -1, -2)
        total += float(np.sum(scores))
        sum_sq += float(np.sum(scores**2))
        for scaled in (True, False):
            weights = stable_softmax(scores / math.sqrt(d_k) if scaled else scores, axis=-1)
            entropy[scaled] += float(np.sum(row_entropy(weights)))
            peak[scaled] += float(np.sum(weights.max(axis=-1)))
        done += n
    samples = trials * tokens * tokens
    rows = trials * tokens
    mean = total / samples
    std = math.sqrt(max(0.0, sum_sq / samples - mean**2))
    return SweepRow(
        d_k=d_k,
        samples=samples,
        std_unscaled=std,
        std_scaled=std / math.sqrt(d_k),
        mean_entropy_scaled=entropy[True] / rows,
        mean_entropy_unscaled=entropy[False] / rows,
        mean_max_scaled=peak[True] / rows,
        mean_max_unscaled=peak[False] / rows,
    )


def sweep_d_k(d_k: int) -> tuple[int, ...]:
    """The sweep's key dimensions: the usual ladder plus the one the learner chose."""
    return tuple(sorted({*SWEEP_D_K, d_k}))


def scaling_lab(d_k: int, tokens: int, seed: int) -> ScalingLab:
    """Everything the lab shows, for one choice of (d_k, tokens, seed)."""
    if d_k < 1 or tokens < 1 or seed < 0:
        raise ValueError(f"need d_k >= 1, tokens >= 1, seed >= 0; got {d_k}, {tokens}, {seed}")
    q, k, v = draw_qkv(tokens, d_k, seed)
    return ScalingLab(
        d_k=d_k,
        tokens=tokens,
        seed=seed,
        scaled=run_once(q, k, v, scaled=True),
        unscaled=run_once(q, k, v, scaled=False),
        causal=run_once(q, k, v, scaled=True, causal=True),
        sweep=tuple(sweep_at(d, tokens, seed) for d in sweep_d_k(d_k)),
    )
