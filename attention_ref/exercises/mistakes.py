"""What each named mistake of an exercise computes, so a wrong output can be put into words.

Each function takes the exercise's own arguments and returns what the buggy code returns (for
the backward exercise, a tuple like the real one). The grader calls them in the parent process,
on the case's inputs, and names every mistake whose output matches the submission's while
differing from the truth. The names are the diagnosis names `submit --json` reports.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

import attention_ref.exercises.solutions as solutions
from attention_ref.pitfalls import ATTENTION_PITFALLS, CAUSAL_PITFALLS, naive_softmax
from attention_ref.reference import Array, attention, stable_softmax

Mistake = Callable[..., object]
# One mistake can be made in several ways (a causal mask off by one either way).
Ways = tuple[Mistake, ...]


# ── stable-softmax ──────────────────────────────────────────────────────────────────────────


def softmax_unstable(x: ArrayLike, axis: int = -1) -> Array:
    return naive_softmax(x, axis=axis)


def softmax_ignores_axis(x: ArrayLike, axis: int = -1) -> Array:
    return stable_softmax(x, axis=-1)


def softmax_global_max(x: ArrayLike, axis: int = -1) -> Array:
    s = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", under="ignore"):
        e = np.exp(s - s.max())
        return e / e.sum(axis=axis, keepdims=True)


def softmax_whole_array(x: ArrayLike, axis: int = -1) -> Array:
    s = np.asarray(x, dtype=np.float64)
    e = np.exp(s - s.max())
    return e / e.sum()


def softmax_whole_array_after_slice_max(x: ArrayLike, axis: int = -1) -> Array:
    """Each slice's max subtracted, then one sum over everything."""
    s = np.asarray(x, dtype=np.float64)
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum()


def softmax_max_without_keepdims(x: ArrayLike, axis: int = -1) -> Array:
    """x - x.max(axis): the max loses its axis and broadcasts along the wrong one."""
    s = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - s.max(axis=axis))
        return e / e.sum(axis=axis, keepdims=True)


# ── causal-attention ────────────────────────────────────────────────────────────────────────


def _masked_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, keep: Array) -> Array:
    with np.errstate(invalid="ignore"):
        return attention(Q, K, V, keep)  # type: ignore[return-value]


def causal_blocks_diagonal(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    t_q, t_k = np.shape(Q)[-2], np.shape(K)[-2]
    return _masked_attention(Q, K, V, np.arange(t_k)[None, :] < np.arange(t_q)[:, None])


def causal_one_future_key(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    t_q, t_k = np.shape(Q)[-2], np.shape(K)[-2]
    return _masked_attention(Q, K, V, np.arange(t_k)[None, :] <= np.arange(t_q)[:, None] + 1)


def causal_bottom_right(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    t_q, t_k = np.shape(Q)[-2], np.shape(K)[-2]
    offset = t_k - t_q
    return _masked_attention(Q, K, V, np.arange(t_k)[None, :] <= np.arange(t_q)[:, None] + offset)


def causal_mask_after_softmax(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    weights = stable_softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1)
    return (weights * solutions.causal_keep(q.shape[0], k.shape[0])) @ v


def causal_no_mask(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    return attention(Q, K, V)  # type: ignore[return-value]


# ── multi-head-attention ────────────────────────────────────────────────────────────────────


def _projections(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike
) -> tuple[Array, Array, Array]:
    x = np.asarray(X, dtype=np.float64)
    return x @ np.asarray(W_q), x @ np.asarray(W_k), x @ np.asarray(W_v)


def mha_scale_by_d_model(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    q, k, v = (solutions.split_heads(p, n_heads) for p in _projections(X, W_q, W_k, W_v))
    d_model = q.shape[0] * q.shape[2]
    weights = stable_softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model), axis=-1)
    return solutions.merge_heads(weights @ v) @ np.asarray(W_o)


def mha_merge_without_transpose(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    heads = [solutions.split_heads(p, n_heads) for p in _projections(X, W_q, W_k, W_v)]
    out = np.asarray(attention(*heads))
    h, t, d_head = out.shape
    return out.reshape(t, h * d_head) @ np.asarray(W_o)


def mha_split_without_transpose(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    projected = _projections(X, W_q, W_k, W_v)
    t, d_model = projected[0].shape
    heads = [p.reshape(n_heads, t, d_model // n_heads) for p in projected]
    out = np.asarray(attention(*heads))
    return out.reshape(t, d_model) @ np.asarray(W_o)


def mha_split_without_transpose_merged_right(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    """The same split by a reshape alone, then merged the right way (transpose, reshape):
    the merge cannot undo a split that already mixed tokens between heads."""
    projected = _projections(X, W_q, W_k, W_v)
    t, d_model = projected[0].shape
    heads = [p.reshape(n_heads, t, d_model // n_heads) for p in projected]
    return solutions.merge_heads(np.asarray(attention(*heads))) @ np.asarray(W_o)


def mha_softmax_over_queries(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    """Each head's (T, T) scores normalised down the columns (over the queries), not per row."""
    q, k, v = (solutions.split_heads(p, n_heads) for p in _projections(X, W_q, W_k, W_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    return solutions.merge_heads(stable_softmax(scores, axis=-2) @ v) @ np.asarray(W_o)


def mha_no_output_projection(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    heads = [solutions.split_heads(p, n_heads) for p in _projections(X, W_q, W_k, W_v)]
    return solutions.merge_heads(np.asarray(attention(*heads)))


# ── attention-backward ──────────────────────────────────────────────────────────────────────


def _forward(Q: ArrayLike, K: ArrayLike, dO: ArrayLike, V: ArrayLike) -> tuple[Array, ...]:
    q, k, v, g = (np.asarray(a, dtype=np.float64) for a in (Q, K, V, dO))
    scale = 1.0 / np.sqrt(q.shape[-1])
    scores = q @ k.T * scale
    return q, k, v, g, scores, stable_softmax(scores, axis=-1), scale


def backward_no_scale(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    d_q, d_k, d_v = solutions.attention_backward(Q, K, V, dO)
    root = np.sqrt(np.shape(Q)[-1])
    return d_q * root, d_k * root, d_v


def backward_dv_from_scores(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    d_q, d_k, _ = solutions.attention_backward(Q, K, V, dO)
    _, _, _, g, scores, _, _ = _forward(Q, K, dO, V)
    return d_q, d_k, scores.T @ g


def backward_softmax_without_correction(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    """dS = A ⊙ dA: the − rowsum(dA ⊙ A) term of the softmax Jacobian is missing."""
    q, k, v, g, _, weights, scale = _forward(Q, K, dO, V)
    d_scores = weights * (g @ v.T)
    return d_scores @ k * scale, d_scores.T @ q * scale, weights.T @ g


def backward_softmax_jacobian_diagonal(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    """dS = A ⊙ (1 − A) ⊙ dA: only the diagonal of each row's softmax Jacobian, as if each
    weight depended on its own score alone."""
    q, k, v, g, _, weights, scale = _forward(Q, K, dO, V)
    d_scores = weights * (1.0 - weights) * (g @ v.T)
    return d_scores @ k * scale, d_scores.T @ q * scale, weights.T @ g


def backward_dv_without_transpose(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    """dV = A dO instead of Aᵀ dO (only runs when T_q == T_k)."""
    d_q, d_k, _ = solutions.attention_backward(Q, K, V, dO)
    _, _, _, g, _, weights, _ = _forward(Q, K, dO, V)
    return d_q, d_k, weights @ g


# ── tiled-attention ─────────────────────────────────────────────────────────────────────────


def tiled_without_rescale(Q: ArrayLike, K: ArrayLike, V: ArrayLike, block: int = 64) -> Array:
    """The running sum and output are not multiplied by exp(m_old − m_new) when the max grows."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    scale = 1.0 / np.sqrt(q.shape[-1])
    running_max = np.full((q.shape[0], 1), -np.inf)
    running_sum = np.zeros((q.shape[0], 1))
    acc = np.zeros((q.shape[0], v.shape[1]))
    for start in range(0, k.shape[0], int(block)):
        scores = q @ k[start : start + int(block)].T * scale
        running_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        weights = np.exp(scores - running_max)
        running_sum = running_sum + weights.sum(axis=-1, keepdims=True)
        acc = acc + weights @ v[start : start + int(block)]
    return acc / running_sum


def tiled_last_block_only(Q: ArrayLike, K: ArrayLike, V: ArrayLike, block: int = 64) -> Array:
    """The accumulators are reset inside the loop, so only the last key block counts."""
    k = np.asarray(K)
    start = ((k.shape[0] - 1) // int(block)) * int(block)
    return attention(Q, k[start:], np.asarray(V)[start:])  # type: ignore[return-value]


def tiled_no_scale(Q: ArrayLike, K: ArrayLike, V: ArrayLike, block: int = 64) -> Array:
    return ATTENTION_PITFALLS["no_scale"](Q, K, V)


# Mistakes seen in the form of the answer rather than its values: a wrong shape, or (for the
# tiled exercise) a call that holds a T_q × T_k array. The grader names these itself.
FORM_MISTAKES: dict[str, frozenset[str]] = {
    "tiled-attention": frozenset({"holds_full_matrix"}),
}

# Exercise id -> diagnosis name -> what the buggy code computes. A name may be shared by
# exercises (causal_off_by_one is one mistake however it is made).
MISTAKES: dict[str, dict[str, Ways]] = {
    "stable-softmax": {
        "unstable_softmax": (softmax_unstable,),
        "softmax_ignores_axis": (softmax_ignores_axis,),
        "global_max": (softmax_global_max,),
        "softmax_whole_array": (softmax_whole_array, softmax_whole_array_after_slice_max),
        "max_without_keepdims": (softmax_max_without_keepdims,),
    },
    "attention": {name: (way,) for name, way in ATTENTION_PITFALLS.items()},
    "causal-attention": {
        # Also blocked with a large finite negative (-1e9): the row the mask blocks entirely
        # is then uniform over every key, not nan. One mistake however it is written.
        "causal_off_by_one": (
            causal_blocks_diagonal,
            causal_one_future_key,
            *CAUSAL_PITFALLS["causal_off_by_one"],
        ),
        "causal_bottom_right": (causal_bottom_right,),
        "mask_after_softmax": (causal_mask_after_softmax,),
        "no_mask": (causal_no_mask,),
    },
    "multi-head-attention": {
        "scale_by_d_model": (mha_scale_by_d_model,),
        "merge_without_transpose": (mha_merge_without_transpose,),
        "split_without_transpose": (
            mha_split_without_transpose,
            mha_split_without_transpose_merged_right,
        ),
        "no_output_projection": (mha_no_output_projection,),
        "softmax_wrong_axis": (mha_softmax_over_queries,),
    },
    "attention-backward": {
        "backward_no_scale": (backward_no_scale,),
        "dv_from_scores": (backward_dv_from_scores,),
        "softmax_backward_incomplete": (
            backward_softmax_without_correction,
            backward_softmax_jacobian_diagonal,
        ),
        "dv_missing_transpose": (backward_dv_without_transpose,),
    },
    "tiled-attention": {
        "no_rescale": (tiled_without_rescale,),
        "last_block_only": (tiled_last_block_only,),
        "no_scale": (tiled_no_scale,),
    },
}
