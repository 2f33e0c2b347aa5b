"""Flash-style attention in Numba: the same numbers as `reference.attention`, in O(T·d) memory.

The reference builds the whole T_q×T_k score matrix. This kernel never does: it walks tiles of
`block_q` queries against tiles of `block_k` keys and keeps, for every query row, only a running
maximum, a running sum of exponentials and a running weighted sum of value rows (the "online
softmax"). When a later key tile raises a row's maximum from m to m', everything accumulated so far
is rescaled by exp(m - m'), so the result is exactly softmax(Q K^T / sqrt(d_k) + mask) V.

Parallelism: the leading dims are flattened to one batch axis B, and the B × ceil(T_q / block_q)
query tiles are independent; `numba.prange` hands them to Numba's thread pool, whose size is
`numba.get_num_threads()` (at most `numba.config.NUMBA_NUM_THREADS`, lowered with
`numba.set_num_threads`). No tile reads another tile's output, so the result does not depend on
the thread count.

Memory: the only allocations are the output (B·T_q·d_v) and, per query tile in flight, a
block_q×block_k score tile, a block_q×d_v accumulator and two block_q vectors. Inputs are only
cast to the common dtype and made contiguous, never broadcast: each output batch entry finds its
Q, K, V and mask through an index array of length B. A mask keeps its own shape (a key-padding
mask stays 1×T_k); a boolean one becomes an additive copy of that shape.

Compilation: the jitted core is compiled lazily on the first call, once per dtype (float32,
float64), and written to Numba's on-disk cache (`cache=True`): beside this file in `__pycache__`
when that folder is writable, otherwise in the user cache dir (or `NUMBA_CACHE_DIR` when set).
Later processes on the same machine load it instead of compiling. Importing this module compiles
nothing. All jitted code lives in this one file on purpose: Numba invalidates a cached function
only when its own source file changes.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numpy.typing import ArrayLike

from attention_ref.reference import Array, additive

DEFAULT_BLOCK_Q = 64
DEFAULT_BLOCK_K = 64


@numba.njit(cache=True, nogil=True)
def _tile_is_blocked(
    mask: Array,
    q0: int,
    q1: int,
    k0: int,
    k1: int,
    causal: bool,
    offset: int,
) -> bool:
    """True when every (query, key) pair of the tile is -inf in the mask or above the diagonal."""
    row_step = 1 if mask.shape[0] > 1 else 0
    col_step = 1 if mask.shape[1] > 1 else 0
    for i in range(q0, q1):
        for j in range(k0, k1):
            if causal and j > i + offset:
                continue
            if mask[i * row_step, j * col_step] != -np.inf:
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _attend_query_tile(
    q: Array,
    k: Array,
    v: Array,
    mask: Array,
    has_mask: bool,
    causal: bool,
    root: np.floating[Any],
    q0: int,
    q1: int,
    block_k: int,
    out: Array,
    scores: Array,
    row_max: Array,
    row_sum: Array,
    acc: Array,
) -> None:
    """Attention for queries q0..q1-1 of one batch entry, written into out[q0:q1].

    `scores` (block_q×block_k, input dtype), `row_max`, `row_sum` and `acc` (block_q×d_v) are
    this tile's scratch. Scores and exponentials are computed in the input dtype, like the
    reference; the running sum and the accumulator are float64 even for float32 inputs, because
    they are where rounding piles up over T_k (measured at T = 2048, d = 64: float32 running
    sums drift ~3x further from the float64 reference; float64 ones stay at the level of the
    float32 scores' own rounding).
    """
    t_k = k.shape[0]
    d_v = v.shape[1]
    rows = q1 - q0
    offset = t_k - q.shape[0]
    row_step = 1 if mask.shape[0] > 1 else 0
    col_step = 1 if mask.shape[1] > 1 else 0

    row_max[:rows] = -np.inf
    row_sum[:rows] = 0.0
    acc[:rows, :] = 0.0

    # With a causal mask, query i sees keys j <= i + offset: tiles right of the last row's
    # diagonal are never touched.
    k_stop = min(t_k, q1 + offset) if causal else t_k
    for k0 in range(0, max(k_stop, 0), block_k):
        k1 = min(k0 + block_k, k_stop)
        if has_mask and _tile_is_blocked(mask, q0, q1, k0, k1, causal, offset):
            continue
        for r in range(rows):
            i = q0 + r
            # Keys past i + offset are hidden from row i by the causal mask: not even scored.
            seen = max(min(k1, i + offset + 1), k0) if causal else k1
            _score_row(q[i], k, mask[i * row_step], has_mask, col_step, root, k0, seen, scores[r])
            scores[r, seen - k0 : k1 - k0] = -np.inf
            _absorb_row(scores[r, : k1 - k0], v[k0:k1], r, row_max, row_sum, acc)

    for r in range(rows):
        # A row with no visible key has row_sum 0: 0/0 is NaN, as in the reference.
        total = row_sum[r]
        for e in range(d_v):
            out[q0 + r, e] = acc[r, e] / total if total > 0.0 else np.nan


@numba.njit(cache=True, nogil=True)
def _score_row(
    q_row: Array,
    k: Array,
    mask_row: Array,
    has_mask: bool,
    col_step: int,
    root: np.floating[Any],
    k0: int,
    k1: int,
    scores_row: Array,
) -> None:
    """scores_row[c] = q_row · k[k0 + c] / sqrt(d_k) + mask, in the input dtype."""
    for j in range(k0, k1):
        dot = q_row.dtype.type(0.0)
        for t in range(q_row.shape[0]):
            dot += q_row[t] * k[j, t]
        s = dot / root
        if has_mask:
            s += mask_row[j * col_step]
        scores_row[j - k0] = s


@numba.njit(cache=True, nogil=True)
def _absorb_row(
    scores_row: Array,
    v_tile: Array,
    r: int,
    row_max: Array,
    row_sum: Array,
    acc: Array,
) -> None:
    """Fold one row of a score tile into that row's running max, sum and weighted values."""
    new_max = row_max[r]
    for s in scores_row:
        new_max = max(new_max, s)
    if new_max == -np.inf:
        return  # nothing visible to this row yet
    # exp(-inf) = 0: a row meeting its first visible key drops the (empty) past.
    rescale = math.exp(row_max[r] - new_max)
    row_max[r] = new_max
    tile_sum = row_sum.dtype.type(0.0)
    for c in range(scores_row.shape[0]):
        p = math.exp(scores_row[c] - new_max)
        scores_row[c] = p
        tile_sum += p
    row_sum[r] = row_sum[r] * rescale + tile_sum
    if rescale != 1.0:
        for e in range(acc.shape[1]):
            acc[r, e] *= rescale
    for c in range(scores_row.shape[0]):
        p = scores_row[c]
        if p != 0.0:
            for e in range(acc.shape[1]):
                acc[r, e] += p * v_tile[c, e]


@numba.njit(cache=True, parallel=True)
def _flash_core(
    q: Array,
    k: Array,
    v: Array,
    mask: Array,
    q_of: Array,
    k_of: Array,
    v_of: Array,
    mask_of: Array,
    has_mask: bool,
    causal: bool,
    root: np.floating[Any],
    block_q: int,
    block_k: int,
    out: Array,
) -> None:
    """Fill out[b] = attention(q[q_of[b]], k[k_of[b]], v[v_of[b]], mask[mask_of[b]]) for all b.

    q is (Bq, T_q, d_k), k (Bk, T_k, d_k), v (Bv, T_k, d_v), mask (Bm, 1 or T_q, 1 or T_k)
    additive, out (B, T_q, d_v); the *_of arrays map each output batch entry to its inputs.
    """
    batch, t_q, d_v = out.shape
    tiles_per_entry = (t_q + block_q - 1) // block_q
    for task in numba.prange(batch * tiles_per_entry):
        b = task // tiles_per_entry
        q0 = (task % tiles_per_entry) * block_q
        q1 = min(q0 + block_q, t_q)
        scores = np.empty((block_q, block_k), dtype=q.dtype)
        row_max = np.empty(block_q, dtype=q.dtype)
        row_sum = np.empty(block_q, dtype=np.float64)
        acc = np.empty((block_q, d_v), dtype=np.float64)
        _attend_query_tile(
            q[q_of[b]],
            k[k_of[b]],
            v[v_of[b]],
            mask[mask_of[b]],
            has_mask,
            causal,
            root,
            q0,
            q1,
            block_k,
            out[b],
            scores,
            row_max,
            row_sum,
            acc,
        )


def _as_core_array(a: Array, dtype: Any) -> Array:
    """`a` as a C-contiguous, writeable 3-D array of `dtype` (leading dims flattened).

    Numba compiles one version per array type (dtype, layout, read-only or not); normalising
    here means each dtype compiles exactly once.
    """
    a = np.ascontiguousarray(a, dtype=dtype).reshape(math.prod(a.shape[:-2]), *a.shape[-2:])
    return a if a.flags.writeable else a.copy()


def _batch_index(lead: tuple[int, ...], batch_shape: tuple[int, ...]) -> Array:
    """For each entry of the flattened `batch_shape`, its flat index in an array led by `lead`."""
    own = np.arange(math.prod(lead), dtype=np.int64).reshape(lead)
    return np.broadcast_to(own, batch_shape).copy().reshape(-1)


def flash_attention(
    Q: ArrayLike,
    K: ArrayLike,
    V: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    causal: bool = False,
    block_q: int = DEFAULT_BLOCK_Q,
    block_k: int = DEFAULT_BLOCK_K,
) -> Array:
    """softmax(Q K^T / sqrt(d_k) + mask) V, computed tile by tile without the T_q×T_k matrix.

    Q is (..., T_q, d_k), K is (..., T_k, d_k), V is (..., T_k, d_v); leading dims broadcast as
    in `reference.attention`. `mask` is additive (0 allowed, -inf blocked, or any finite bias) or
    a boolean keep-mask, broadcastable to (..., T_q, T_k). `causal=True` lets query i see keys
    j <= i + (T_k - T_q), as `reference.causal_mask` does. The result is (..., T_q, d_v), with
    the broadcast leading dims and the inputs' floating dtype (float32 stays float32; integers
    become float64).

    A query row that sees no key at all (every key masked, the first T_q - T_k queries under
    `causal` when T_q > T_k, or T_k = 0) comes out as NaN, as in the reference: softmax over an
    empty set is undefined.

    The first call per dtype compiles the kernel (or loads it from Numba's cache).
    """
    if block_q < 1 or block_k < 1:
        raise ValueError(f"tile sizes must be positive: block_q={block_q}, block_k={block_k}")
    q, k, v = (np.asarray(a) for a in (Q, K, V))
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise ValueError(f"Q, K and V need at least 2 dims (T, d): {q.shape}, {k.shape}, {v.shape}")
    dtype = np.result_type(q.dtype, k.dtype, v.dtype, np.float32)
    (t_q, d_k), (t_k, d_v) = q.shape[-2:], v.shape[-2:]
    if k.shape[-1] != d_k:
        raise ValueError(f"Q and K need the same last dimension d_k: {q.shape} vs {k.shape}")
    if k.shape[-2] != t_k:
        raise ValueError(f"K and V need the same length T_k: {k.shape} vs {v.shape}")

    if mask is None:
        m = np.zeros((1, 1), dtype=dtype)
    else:
        m = additive(mask, dtype)
        m = m.reshape((1,) * (2 - m.ndim) + m.shape)
        if m.shape[-2] not in (1, t_q) or m.shape[-1] not in (1, t_k):
            raise ValueError(f"mask of shape {m.shape} does not broadcast to (..., {t_q}, {t_k})")

    leads = [a.shape[:-2] for a in (q, k, v, m)]
    batch_shape = np.broadcast_shapes(*leads)
    out = np.empty((math.prod(batch_shape), t_q, d_v), dtype=dtype)
    if out.size:
        q_of, k_of, v_of, mask_of = (_batch_index(lead, batch_shape) for lead in leads)
        _flash_core(
            _as_core_array(q, dtype),
            _as_core_array(k, dtype),
            _as_core_array(v, dtype),
            _as_core_array(m, dtype),
            q_of,
            k_of,
            v_of,
            mask_of,
            mask is not None,
            bool(causal),
            np.sqrt(dtype.type(d_k)),
            int(block_q),
            int(block_k),
            out,
        )
    return out.reshape((*batch_shape, t_q, d_v))
