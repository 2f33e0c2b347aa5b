"""The ground truth of every coding exercise: what a correct solution returns.

These are the trusted computations the grader compares a submission with. They are written for
clarity, not speed (the fast kernel lives in `attention_ref.kernel`), in float64 unless the inputs
are float32, and each follows the exercise's contract in docs/spec.md ("Coding exercises").
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attention_ref.reference import Array, attention, stable_softmax


def softmax(x: ArrayLike, axis: int = -1) -> Array:
    """softmax along any axis of an array of any rank (the max is subtracted first)."""
    return stable_softmax(x, axis=axis)


def causal_keep(t_q: int, t_k: int) -> Array:
    """Top-left aligned causal pattern (torch's is_causal): query i sees keys j <= i."""
    return np.arange(t_k)[None, :] <= np.arange(t_q)[:, None]


def causal_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike) -> Array:
    q = np.asarray(Q)
    k = np.asarray(K)
    return attention(Q, K, V, causal_keep(q.shape[-2], k.shape[-2]))  # type: ignore[return-value]


def split_heads(x: Array, n_heads: int) -> Array:
    """(T, d_model) -> (n_heads, T, d_head): head h owns columns h*d_head .. (h+1)*d_head - 1."""
    t, d_model = x.shape
    return x.reshape(t, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(x: Array) -> Array:
    """(n_heads, T, d_head) -> (T, n_heads * d_head), heads side by side in order."""
    n_heads, t, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(t, n_heads * d_head)


def multi_head_attention(
    X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int
) -> Array:
    x = np.asarray(X)
    heads = [split_heads(x @ np.asarray(w), n_heads) for w in (W_q, W_k, W_v)]
    out = attention(*heads)  # each head scaled by its own sqrt(d_head)
    return merge_heads(out) @ np.asarray(W_o)  # type: ignore[arg-type]


def attention_backward(
    Q: ArrayLike, K: ArrayLike, V: ArrayLike, dO: ArrayLike
) -> tuple[Array, Array, Array]:
    """(dQ, dK, dV) of O = softmax(Q Kᵀ/√d_k) V for the upstream gradient dO."""
    q, k, v, g = (np.asarray(a, dtype=np.float64) for a in (Q, K, V, dO))
    scale = 1.0 / np.sqrt(q.shape[-1])
    weights = stable_softmax(q @ k.T * scale, axis=-1)
    d_v = weights.T @ g
    d_weights = g @ v.T
    # Softmax backward, row by row: dS = A ⊙ (dA − rowsum(dA ⊙ A)).
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))
    return d_scores @ k * scale, d_scores.T @ q * scale, d_v


def tiled_attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, block: int = 64) -> Array:
    """Exact attention with an online softmax over key blocks: never a T_q × T_k array."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    scale = 1.0 / np.sqrt(q.shape[-1])
    running_max = np.full((q.shape[0], 1), -np.inf)
    running_sum = np.zeros((q.shape[0], 1))
    acc = np.zeros((q.shape[0], v.shape[1]))
    for start in range(0, k.shape[0], block):
        scores = q @ k[start : start + block].T * scale
        new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        rescale = np.exp(running_max - new_max)
        weights = np.exp(scores - new_max)
        running_sum = running_sum * rescale + weights.sum(axis=-1, keepdims=True)
        acc = acc * rescale + weights @ v[start : start + block]
        running_max = new_max
    return acc / running_sum
