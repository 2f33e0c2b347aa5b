"""Flash-style attention in Numba: the same numbers as `reference.attention`, in O(T·d) memory.

The reference builds the whole T_q×T_k score matrix. This kernel never does: it walks tiles of
`block_q` queries against tiles of `block_k` keys and keeps, for every query row, only a running
maximum, a running sum of exponentials and a running weighted sum of value rows (the "online
softmax"). When a later key tile raises a row's maximum from m to m', everything accumulated so far
is rescaled by exp(m - m'), so the result is exactly softmax(Q K^T / sqrt(d_k) + mask) V.

Speed: per tile the work is two small matrix products and block_q×block_k exponentials.
- The products go to NumPy's own OpenBLAS (sgemm/dgemm), called from inside the jitted code
  through names that `kernel_blas.link` binds at the first call. BLAS runs on one thread during
  the call (`kernel_blas.single_threaded_blas`): the parallelism is the kernel's.
- exp is a polynomial written here (`_exp_shifted_row_f32` and `_f64`): Numba's `math.exp`
  stays a scalar libm call (no SVML in this llvmlite), which cost as much as both products
  together. The polynomial is range-reduced (x = k ln2 + r, |r| <= ln2/2), evaluated by Horner's
  rule and scaled by 2^k built from its bits, so LLVM turns the loop into SIMD code (AVX2,
  AVX-512). Degree 7 is within float32 rounding, degree 12 within 2e-16 for float64.
- The per-row max is an integer max over the scores' bits (`_row_max`): LLVM leaves a float
  max loop scalar, and at ~2.5 G/s it cost a third as much as the products.
- Tiles default to 256×256: large enough for BLAS to run near its peak, small enough that a
  thread's score tile (256 KiB in float32) and the key and value tiles stay in its L2.

Parallelism: the leading dims are flattened to one batch axis B, and the B × ceil(T_q / block_q)
query tiles are independent; `numba.prange` hands them to Numba's thread pool, whose size is
`numba.get_num_threads()` (at most `numba.config.NUMBA_NUM_THREADS`, lowered with
`numba.set_num_threads`). Tiles are visited in the order first, last, second, second last, ...,
so the equal contiguous shares the pool gives each thread carry equal work under a causal mask.
No tile reads another tile's output, so the result does not depend on the thread count.

Memory: the only allocations are the output (B·T_q·d_v), which also serves as the accumulator,
and, per query tile in flight, a block_q×block_k score tile and two block_q vectors. Inputs are
only cast to the common dtype and made contiguous, never broadcast: each output batch entry finds
its Q, K, V and mask through an index array of length B. A mask keeps its own shape (a
key-padding mask stays 1×T_k); a boolean one becomes an additive copy of that shape.

Precision: scores, exponentials and the accumulator are in the input dtype, as BLAS computes
them; the running sums are float64. Measured at T = 2048, d = 64 against the float64 reference,
the largest error / max|V| is 3e-8 (1.5e-7 causal) for float32 and 1e-16 (3e-16) for float64.

Compilation: the jitted core is compiled lazily on the first call, once per dtype (float32,
float64), and written to Numba's on-disk cache (`cache=True`): beside this file in `__pycache__`
when that folder is writable, otherwise in the user cache dir (or `NUMBA_CACHE_DIR` when set).
Later processes on the same machine load it instead of compiling. Importing this module compiles
nothing. All jitted code lives in this one file on purpose: Numba invalidates a cached function
only when its own source file changes (the BLAS functions are found by name at link time).
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numpy.typing import ArrayLike

from attention_ref import kernel_blas
from attention_ref.reference import Array, additive

DEFAULT_BLOCK_Q = 256
DEFAULT_BLOCK_K = 256

# Link names of the BLAS functions; `kernel_blas.link` binds them before the first call.
_SGEMM_NAME = "attnquiz_cblas_sgemm"
_DGEMM_NAME = "attnquiz_cblas_dgemm"


def _gemm_type(real: Any) -> Any:
    """cblas_?gemm with 64-bit integers: order, transA, transB, M, N, K, alpha, A, lda, ..."""
    ints, ptr = types.int64, types.voidptr
    flags = (types.int32,) * 3
    return types.void(*flags, ints, ints, ints, real, ptr, ints, ptr, ints, real, ptr, ints)


_sgemm: Any = types.ExternalFunction(_SGEMM_NAME, _gemm_type(types.float32))
_dgemm: Any = types.ExternalFunction(_DGEMM_NAME, _gemm_type(types.float64))

_ROW_MAJOR, _NO_TRANSPOSE, _TRANSPOSE = 101, 111, 112
_DIAGONAL_BAND = 64  # rows per band in a tile on the causal diagonal

# exp(x) = 2^k · exp(r), k = round(x / ln 2), r = x - k ln2 with ln2 split in two (Cody-Waite) so
# that k·LN2_HI is exact. Below the cut-off, exp underflows to 0 (the polynomial would not);
# -inf, a masked score, lands there too.
_F32 = np.float32
_LOG2E_F32, _HALF_F32 = _F32(1.4426950408889634), _F32(0.5)
_LN2_HI_F32, _LN2_LO_F32 = _F32(0.693145751953125), _F32(1.428606765330187e-06)
_CUTOFF_F32 = _F32(-87.0)  # exp(-87) ~ 1.6e-38 is still a normal float32
_BIAS_F32 = _F32(2.0**23 + 127)  # adding it leaves k + 127 in the low mantissa bits
_TAYLOR_F32 = tuple(_F32(1.0 / math.factorial(n)) for n in range(8))
_LOG2E_F64, _HALF_F64 = 1.4426950408889634, 0.5
_LN2_HI_F64, _LN2_LO_F64 = 0.6931471803691238, 1.9082149292705877e-10
_CUTOFF_F64 = -708.0
_BIAS_F64 = 2.0**52 + 1023
_TAYLOR_F64 = tuple(1.0 / math.factorial(n) for n in range(13))


def _same_bits_typing(typingctx: Any, value: Any) -> Any:
    """The float with the bits of an int of the same width, or the other way round."""
    partner: tuple[Any, Any] | None = {
        types.float32: (types.int32, ir.IntType(32)),
        types.float64: (types.int64, ir.IntType(64)),
        types.int32: (types.float32, ir.FloatType()),
        types.int64: (types.float64, ir.DoubleType()),
    }.get(value)
    if partner is None:
        return None
    result, llvm_type = partner

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], llvm_type)

    return result(value), codegen


_same_bits: Any = intrinsic(_same_bits_typing)


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def _exp_shifted_row_f32(scores: Array, r: int, width: int, shift: Any) -> None:
    """scores[r, :width] = exp(scores[r, :width] - shift), in float32 SIMD lanes."""
    c0, c1, c2, c3, c4, c5, c6, c7 = _TAYLOR_F32
    for c in range(width):
        x = _F32(scores[r, c] - shift)
        kept = x >= _CUTOFF_F32
        x = max(x, _CUTOFF_F32)
        k = np.floor(x * _LOG2E_F32 + _HALF_F32)
        y = (x - k * _LN2_HI_F32) - k * _LN2_LO_F32
        p = c7 * y + c6
        p = p * y + c5
        p = p * y + c4
        p = p * y + c3
        p = p * y + c2
        p = p * y + c1
        p = p * y + c0
        bits = _same_bits(_F32(k + _BIAS_F32)) << 23
        scale = _same_bits(np.int32(bits))
        scores[r, c] = p * scale if kept else _F32(0.0)


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def _exp_shifted_row_f64(scores: Array, r: int, width: int, shift: Any) -> None:
    """scores[r, :width] = exp(scores[r, :width] - shift) to ~2e-16, in float64 SIMD lanes."""
    c = _TAYLOR_F64
    for j in range(width):
        x: Any = np.float64(scores[r, j] - shift)
        kept = x >= _CUTOFF_F64
        x = max(x, _CUTOFF_F64)
        k = np.floor(x * _LOG2E_F64 + _HALF_F64)
        y = (x - k * _LN2_HI_F64) - k * _LN2_LO_F64
        p = c[12] * y + c[11]
        p = p * y + c[10]
        p = p * y + c[9]
        p = p * y + c[8]
        p = p * y + c[7]
        p = p * y + c[6]
        p = p * y + c[5]
        p = p * y + c[4]
        p = p * y + c[3]
        p = p * y + c[2]
        p = p * y + c[1]
        p = p * y + c[0]
        scale = _same_bits(_same_bits(k + _BIAS_F64) << 52)
        scores[r, j] = p * scale if kept else 0.0


# A sum may be reordered (SIMD lanes) and assume no NaN; -inf (masked scores) stays legal.
_REDUCTION_MATH = {"reassoc", "nsz", "nnan", "contract"}
_MAGNITUDE_32, _MAGNITUDE_64 = np.int32(0x7FFFFFFF), np.int64(0x7FFFFFFFFFFFFFFF)


@numba.njit(cache=True, nogil=True)
def _row_max(scores: Array, r: int, width: int, start: Any) -> Any:
    """max(start, scores[r, :width]), found as the max of integers ordered like the floats.

    LLVM leaves a float max loop scalar here (~2.5 G/s), whatever the fastmath flags; an integer
    max vectorizes (~38 G/s). A float's bits, with the magnitude bits of negatives flipped, are an
    integer of the same order (-inf lowest; a NaN would come out on top and propagate).
    """
    if scores.itemsize == 4:
        best32 = np.int32(-(2**31))
        for c in range(width):
            bits32 = _same_bits(np.float32(scores[r, c]))
            best32 = max(best32, np.int32(bits32 ^ ((bits32 >> 31) & _MAGNITUDE_32)))
        top = _same_bits(np.int32(best32 ^ ((best32 >> 31) & _MAGNITUDE_32)))
    else:
        best64 = np.int64(-(2**63))
        for c in range(width):
            bits64 = _same_bits(np.float64(scores[r, c]))
            best64 = max(best64, bits64 ^ ((bits64 >> 63) & _MAGNITUDE_64))
        top = _same_bits(best64 ^ ((best64 >> 63) & _MAGNITUDE_64))
    return max(start, top) if width > 0 else start


@numba.njit(cache=True, nogil=True, fastmath=_REDUCTION_MATH)
def _row_total(scores: Array, r: int, width: int) -> float:
    """sum(scores[r, :width]) as float64, added up in SIMD lanes of the scores' dtype."""
    total = scores.dtype.type(0.0)
    for c in range(width):
        total += scores[r, c]
    return float(total)


@numba.njit(cache=True, nogil=True)
def _gemm(
    transpose_b: bool,
    m: int,
    n: int,
    k: int,
    alpha: Any,
    a: Array,
    lda: int,
    b: Array,
    ldb: int,
    beta: float,
    c: Array,
    ldc: int,
) -> None:
    """c = alpha · a @ (b^T if transpose_b else b) + beta · c on row-major storage, via BLAS."""
    flag_b = _TRANSPOSE if transpose_b else _NO_TRANSPOSE
    # BLAS rejects leading dims below 1 even when a dimension is empty.
    lda, ldb, ldc = max(lda, 1), max(ldb, 1), max(ldc, 1)
    if c.itemsize == 4:
        _sgemm(
            _ROW_MAJOR, _NO_TRANSPOSE, flag_b, m, n, k, np.float32(alpha),
            a.ctypes, lda, b.ctypes, ldb, np.float32(beta), c.ctypes, ldc,
        )  # fmt: skip
    else:
        _dgemm(
            _ROW_MAJOR, _NO_TRANSPOSE, flag_b, m, n, k, np.float64(alpha),
            a.ctypes, lda, b.ctypes, ldb, np.float64(beta), c.ctypes, ldc,
        )  # fmt: skip


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
def _absorb_key_tile(
    q_tile: Array,
    k: Array,
    v: Array,
    mask: Array,
    has_mask: bool,
    crosses_diagonal: bool,
    inv_root: Any,
    q0: int,
    r0: int,
    r1: int,
    k0: int,
    width: int,
    offset: int,
    scores: Array,
    row_max: Array,
    row_sum: Array,
    acc: Array,
) -> None:
    """Fold keys k0..k0+width-1 into the running state of tile rows r0..r1-1 (queries q0 + r)."""
    d_k, d_v = k.shape[1], v.shape[1]
    row_step = 1 if mask.shape[0] > 1 else 0
    col_step = 1 if mask.shape[1] > 1 else 0
    k1 = k0 + width
    _gemm(
        True, r1 - r0, width, d_k, inv_root, q_tile[r0:r1], d_k, k[k0:k1], d_k, 0.0,
        scores[r0:r1], scores.shape[1],
    )  # fmt: skip
    for r in range(r0, r1):
        i = q0 + r
        if has_mask:
            mask_row = mask[i * row_step]
            if col_step:
                for c in range(width):
                    scores[r, c] += mask_row[k0 + c]
            else:
                for c in range(width):
                    scores[r, c] += mask_row[0]
        if crosses_diagonal:
            # Keys past i + offset are hidden from row i.
            for c in range(max(i + offset + 1 - k0, 0), width):
                scores[r, c] = -np.inf
        new_max = _row_max(scores, r, width, row_max[r])
        if new_max == -np.inf:
            scores[r, :width] = 0.0  # nothing visible to this row yet
            continue
        # exp(-inf) = 0: a row meeting its first visible key drops the (empty) past.
        rescale = math.exp(row_max[r] - new_max)
        row_max[r] = new_max
        if scores.itemsize == 4:
            _exp_shifted_row_f32(scores, r, width, new_max)
        else:
            _exp_shifted_row_f64(scores, r, width, new_max)
        row_sum[r] = row_sum[r] * rescale + _row_total(scores, r, width)
        if rescale != 1.0:
            for e in range(d_v):
                acc[r, e] *= rescale
    _gemm(
        False, r1 - r0, d_v, width, 1.0, scores[r0:r1], scores.shape[1], v[k0:k1], d_v, 1.0,
        acc[r0:r1], d_v,
    )  # fmt: skip


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
) -> None:
    """Attention for queries q0..q1-1 of one batch entry, written into out[q0:q1].

    out[q0:q1] doubles as the running weighted sum of value rows. `scores` (block_q×block_k),
    `row_max` (input dtype) and `row_sum` (float64) are this tile's scratch.
    """
    t_k, d_v = k.shape[0], v.shape[1]
    rows = q1 - q0
    offset = t_k - q.shape[0]
    inv_root = 1.0 / root
    q_tile, acc = q[q0:q1], out[q0:q1]

    row_max[:rows] = -np.inf
    row_sum[:rows] = 0.0
    acc[:, :] = 0.0

    # With a causal mask, query i sees keys j <= i + offset: tiles right of the last row's
    # diagonal are never touched.
    k_stop = min(t_k, q1 + offset) if causal else t_k
    for k0 in range(0, max(k_stop, 0), block_k):
        k1 = min(k0 + block_k, k_stop)
        width = k1 - k0
        if has_mask and _tile_is_blocked(mask, q0, q1, k0, k1, causal, offset):
            continue
        # A tile crossing the causal diagonal (its last key is beyond the first row's reach) is
        # done in bands of rows, each scoring only the keys its last row can see: that skips most
        # of the hidden triangle instead of computing it and masking it.
        crosses_diagonal = causal and k1 - 1 > q0 + offset
        band = _DIAGONAL_BAND if crosses_diagonal else rows
        for r0 in range(0, rows, band):
            r1 = min(r0 + band, rows)
            seen = min(width, q0 + r1 + offset - k0) if crosses_diagonal else width
            if seen <= 0:
                continue  # no row of the band sees a key of this tile
            _absorb_key_tile(
                q_tile, k, v, mask, has_mask, crosses_diagonal, inv_root, q0, r0, r1, k0, seen,
                offset, scores, row_max, row_sum, acc,
            )  # fmt: skip

    for r in range(rows):
        # A row with no visible key has row_sum 0: 0/0 is NaN, as in the reference.
        total = row_sum[r]
        for e in range(d_v):
            acc[r, e] = acc[r, e] / total if total > 0.0 else np.nan


@numba.njit(cache=True, nogil=True)
def _balanced_tile(position: int, tiles: int) -> int:
    """The tile at `position` in the order 0, n-1, 1, n-2, ...: any contiguous run of positions
    pairs cheap early tiles with costly late ones under a causal mask."""
    half = position // 2
    return half if position % 2 == 0 else tiles - 1 - half


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
    batch, t_q = out.shape[:2]
    tiles_per_entry = (t_q + block_q - 1) // block_q
    for task in numba.prange(batch * tiles_per_entry):
        b = task // tiles_per_entry
        q0 = _balanced_tile(task % tiles_per_entry, tiles_per_entry) * block_q
        q1 = min(q0 + block_q, t_q)
        scores = np.empty((block_q, block_k), dtype=q.dtype)
        row_max = np.empty(block_q, dtype=q.dtype)
        row_sum = np.empty(block_q, dtype=np.float64)
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
        blas = kernel_blas.link(_SGEMM_NAME, _DGEMM_NAME)
        with kernel_blas.single_threaded_blas(blas):
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
