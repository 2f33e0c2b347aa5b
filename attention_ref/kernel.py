"""Flash-style attention in Numba: the same numbers as `reference.attention`, in O(T·d) memory.

The reference builds the whole T_q×T_k score matrix. This kernel never does: it walks tiles of
`block_q` queries against tiles of `block_k` keys and keeps, for every query, only a running
maximum, a running sum of exponentials and a running weighted sum of value rows (the "online
softmax"). When a later key tile raises a query's maximum from m to m', everything accumulated so
far is rescaled by exp(m - m'), so the result is exactly softmax(Q K^T / sqrt(d_k) + mask) V.

Speed: per tile the work is two matrix products and block_q×block_k exponentials.
- The products are done here, by one register-blocked "micro-kernel" written in LLVM vector IR
  (`_block_product`, used as `_product_set_max` and `_product_add`): it keeps a 6-row × NR-column
  block of the result in vector registers (NR = 4 vectors of 16 float32 = 64 with AVX-512,
  2 vectors of 8 = 16 with AVX2; half as many float64) and adds one rank-1 update per step of
  the inner dimension, each a broadcast times a row of vectors. The vector width is the one of
  the CPU Numba compiles for (`_vector_bytes`). No BLAS call, so nothing is repacked per tile
  and nothing depends on which core type OpenBLAS picks: the operands are already laid out for
  the micro-kernel. The score tile is computed transposed, S^T = K_tile · Q_tile^T, from
  a transposed copy of the query tile made once per query tile; then each key row of S^T is a
  row of vectors across queries, so the softmax's per-query max, sum and rescale are plain
  element-wise vector loops. P·V reads its left operand straight out of S^T (a stride-1 run of
  6 queries per key) and V's rows as they are. With no mask, and under a causal mask on tiles
  that every query of the tile sees whole, each query's running maximum is raised as the score
  blocks leave the registers (`_product_set_max`), which spares a pass over the score tile
  (2% of the time at T = 2048 on one thread).
- Scores are kept in base 2: the scale is log2(e)/sqrt(d_k) (and masks are multiplied by
  log2(e)), so exp becomes 2^x, emitted as LLVM vector IR (`_exp2_emitter`): in float32, x is
  rounded to n/16 (n/8 with AVX2), 2^(n mod 16 / 16) comes from a 16-entry table held in one
  register (one permute), n // 16 is added to its exponent bits, and a degree-3 polynomial
  gives 2^f on [-1/32, 1/32]: 4 multiply-adds per vector instead of the 7 of a degree-6
  polynomial on [-1/2, 1/2] (float64: no table, degree 13). No Cody-Waite split, no libm call.
  The exponentials go strip by strip of one vector of queries down the key rows, with the
  column sums in a register.
- With AVX-512, where the column maxima come with the products, a panel of queries is final
  once its S^T products are done, and its exponentials are taken inside the next panel's block
  products, one vector per step of the product's loop (`_emit_block_product`'s `exp_job`): the
  products keep the multiply-add units busy and leave the adders, the shifts and the permute
  unit mostly idle, which is what the exponential needs. Only the last panel's go through a pass
  of their own. (With AVX2's 16 registers the block's sums spill: there it stays a pass.)
- Tiles default to 256 queries × 256 keys: the score tile (256 KiB in float32), the query tile
  and the key and value tiles stay in a core's L2.
- The transposed query and score tiles have rows of an odd number of whole 64-byte lines. As
  Numba aligns arrays to 32 bytes, an AVX2 vector then never straddles two lines, and a panel's
  rows do not all fall into the same few sets of L1 (rows of 258 floats cost the S^T product 4%
  of a call with AVX2; a power-of-two stride would cost more). The block loops name each array
  directly at its call: an array variable rebound inside them would cost Numba's reference
  counting (atomic, through calls) on every block (another 3-4%).

Parallelism: the leading dims are flattened to one batch axis B, and the query tiles of every
batch entry are independent tasks. A call runs one worker per thread (`numba.get_num_threads()`,
so `numba.set_num_threads` and NUMBA_NUM_THREADS set it): the calling thread and, from a pool
started on first use, helper threads, all running the same jitted worker without the GIL. Each
worker allocates its scratch once and takes the next task from a shared atomic counter until
none is left, so a thread that starts late or loses its core to another process for a while
takes fewer tasks instead of leaving the others waiting at the end. Each entry's tiles are
handed out last first: under a causal mask the late tiles see the most keys, and the cheap
early ones fill in at the end. When there are few tiles (one head, T of a few thousand), tasks
are narrower than block_q, down to 128 queries, so each thread gets at least 4. A query's result
does not depend on which task it is in, nor on which thread runs it, so the output does not
depend on the thread count. Plain threads, not Numba's `parallel=True`: a parallel region costs
a second compile of the whole kernel (its loop body becomes a function of its own, optimised
again with everything it calls), a third of the cold compile; and a thread that waits for work
sleeps instead of spinning on a core, as an OpenMP pool does after each call.
Under a causal mask, work above the diagonal is skipped block by block: a 6-query block of P·V
only reads the keys its last query sees, and an NR-query panel of S^T only computes the keys its
last query sees.

Memory: the only allocations are the output (B·T_q·d_v) and, per thread, the
transposed query tile, a block_k×block_q score tile, a block_q×d_v accumulator and a few block_q
vectors. Inputs are only cast to the common dtype and made contiguous, never broadcast: each
output batch entry finds its Q, K, V and mask through an index array of length B. A mask keeps
its own shape (a key-padding mask stays 1×T_k); a boolean one becomes an additive copy of that
shape.

Precision: scores, exponentials and the accumulator are in the input dtype; the running sums are
float64. Measured at T = 2048, d = 64 against the float64 reference, the largest error / max|V|
is 3e-8 (1e-7 causal) for float32 and 1e-16 (2e-16 causal) for float64.

Compilation: the jitted worker is compiled lazily on the first call, once per dtype (float32,
float64): `flash_attention` hands it C-contiguous writeable arrays, int64 index arrays, bools
and Python ints only, so no other argument types ever reach it. It is compiled for this CPU's
vector width and written to Numba's on-disk cache (`cache=True`): beside this file in
`__pycache__` when that folder is writable, otherwise in the user cache dir (or
`NUMBA_CACHE_DIR` when set). Later processes on the same machine load it instead of compiling.
Importing this module compiles nothing. All jitted code lives in this one file on purpose:
Numba invalidates a cached function only when its own source file changes. A cold compile is
kept small: what differs by dtype (the exp2) is emitted for the dtype the intrinsic is typed
with, not chosen by a branch at run time that would compile both versions; jitted callees are
called with no constant argument (Numba compiles a jitted callee once more for each literal
value it is passed); functions that only jitted code calls get no Python or C wrapper
(`_JIT_ONLY`); and a task's work is written inside the worker's task loop (`_flash_core`), not
in a jitted function of its own, which Numba would optimise and turn into machine code once
alone and once more inside the worker (a sixth of a cold compile).
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import ArrayLike

from attention_ref.reference import Array, additive

DEFAULT_BLOCK_Q = 256
DEFAULT_BLOCK_K = 256

_LOG2E = 1.4426950408889634


def _cpu_features() -> set[str]:
    """The features ("+avx2", ...) of the CPU Numba compiles for."""
    from llvmlite import binding as llvm
    from numba.core import config

    named_features: str | None = getattr(config, "CPU_FEATURES", None)
    if named_features is not None:
        return set(named_features.split(","))
    if getattr(config, "CPU_NAME", None) is not None:
        return set()  # a named CPU without a feature list: assume only SSE2
    return {f"+{name}" for name, on in llvm.get_host_cpu_features().items() if on}


def _vector_bytes() -> int:
    """The widest vector register of the CPU Numba compiles for: 64 (AVX-512), 32 (AVX2), 16."""
    features = _cpu_features()
    if "+avx512f" in features:
        return 64
    return 32 if "+avx2" in features or "+avx" in features else 16


def _exp2_table() -> int:
    """Entries of the float32 2^x table: one per lane of the widest vector that a permute can
    index (16: AVX-512's vpermps on zmm, 8: AVX2's on ymm), else 1 (no table)."""
    features = _cpu_features()
    if "+avx512f" in features:
        return 16
    return 8 if "+avx2" in features else 1


# The micro-kernel's block: _ROWS rows × _VECTORS vectors of the result held in registers
# (6 × 4 = 24 of AVX-512's 32 registers; 6 × 2 = 12 of AVX2's 16, the rest for operands).
_VECTOR_BYTES = _vector_bytes()
_EXP2_TABLE = _exp2_table()
_ROWS = 6
_VECTORS = 4 if _VECTOR_BYTES == 64 else 2
_COLUMNS_32 = _VECTORS * _VECTOR_BYTES // 4  # result columns per block, float32
_COLUMNS_64 = _VECTORS * _VECTOR_BYTES // 8
# A panel's exponentials inside the next panel's S^T block products (see _emit_block_product):
# with AVX-512 only, whose 32 registers hold the block's 24 sums and the exponential's values;
# with AVX2's 16 the block's 12 sums spill, and a call took 5% longer than with the
# exponentials in a pass of their own (T = 2048, one thread).
_EXP_IN_PRODUCTS = _VECTOR_BYTES == 64
# P·V in runs of this many keys (each run through every block of queries before the next): a
# run of V rows (16 KiB in float32) and of S^T rows stays in L1 for all the block products that
# read it. With AVX2 a block covers 16 of V's 64 columns, so each run of S^T is read 4 times;
# over the whole 256-key tile that read went to L2 and cost 9% of a call at T = 2048 (one
# thread, AVX2 build on a Zen 4). With AVX-512 it changed nothing measurable.
_PV_RUN = 64


def _block_product(accumulate: bool) -> Any:
    """The block product as a Numba intrinsic: C = A B, or C += A B when `accumulate`.

    C[i, j] for a block of _ROWS rows i and NR columns j, on flat element offsets into three
    arrays of one dtype: A[i, p] = a[a_start + i·a_row_step + p·a_depth_step] for p < depth,
    B[p, j] = b[b_start + p·b_row_step + j], C[i, j] = c[c_start + i·c_row_step + j]. The
    block stays in registers for the whole sum; the caller keeps every address in bounds.
    """

    def typing(
        typingctx: Any,
        a: Any,
        a_start: Any,
        a_row_step: Any,
        a_depth_step: Any,
        b: Any,
        b_start: Any,
        b_row_step: Any,
        c: Any,
        c_start: Any,
        c_row_step: Any,
        depth: Any,
    ) -> Any:
        if not all(isinstance(x, types.Array) for x in (a, b, c)) or not (
            a.dtype == b.dtype == c.dtype and c.dtype in (types.float32, types.float64)
        ):
            return None
        signature = types.void(
            a, a_start, a_row_step, a_depth_step, b, b_start, b_row_step, c, c_start, c_row_step,
            depth,
        )  # fmt: skip

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            ints = [
                None if n in (0, 4, 7) else context.cast(builder, v, t, types.int64)
                for n, (v, t) in enumerate(zip(args, sig.args, strict=True))
            ]
            a_ptr, b_ptr, c_ptr = (
                builder.gep(context.make_array(sig.args[n])(context, builder, args[n]).data,
                            [ints[n + 1]])
                for n in (0, 4, 7)
            )  # fmt: skip
            _emit_block_product(
                builder, a_ptr, ints[2], ints[3], b_ptr, ints[6], c_ptr, ints[9], ints[10],
                c.dtype.bitwidth, accumulate,
            )  # fmt: skip
            return context.get_dummy_value()

        return signature, codegen

    return intrinsic(typing)


def _emit_block_product(
    builder: Any,
    a_ptr: Any,
    a_row: Any,
    a_step: Any,
    b_ptr: Any,
    b_row: Any,
    c_ptr: Any,
    c_row: Any,
    depth: Any,
    bits: int,
    accumulate: bool,
    max_ptr: Any = None,
    max_rows: Any = None,
    exp_job: tuple[Any, Any, Any, Any, Any] | None = None,
) -> None:
    """The LLVM IR of one block product: a loop over p of _ROWS × _VECTORS fused multiply-adds
    (a broadcast A[i, p] times the vector B[p, j·lanes : (j+1)·lanes]), then one store. With
    `max_ptr`, also M[j] = max(M[j], C[i, j] for i < max_rows) on the NR values at max_ptr.

    With `exp_job` = (e_ptr, e_row, e_rows, shift_ptr, sums_ptr), the loop also takes the
    exponentials of another block of the same shape, E[i, j] = e_ptr[i·e_row + j] for i < e_rows
    (none when e_rows <= 0): E[i, j] = 2^(E[i, j] - shift[j]) and sums[j] += it, one vector per
    step p (the rest after the loop when depth is shorter than the block). The products keep the
    multiply-add units busy and leave the adders idle; the exponentials are mostly adds,
    compares, shifts and a permute, so they run in the products' shadow instead of in a pass of
    their own."""
    lanes = _VECTOR_BYTES * 8 // bits
    i64 = ir.IntType(64)
    vec = ir.VectorType(a_ptr.type.pointee, lanes)
    fma = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fmuladd.v{lanes}f{bits}"
    )
    zero = ir.Constant(vec, None)
    undef = ir.Constant(vec, ir.Undefined)
    splat_mask = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes)

    def vector_at(base: Any, offset: Any) -> Any:
        step = ir.Constant(i64, offset) if isinstance(offset, int) else offset
        return builder.bitcast(builder.gep(base, [step]), vec.as_pointer())

    def products(p: Any, sums: list[list[Any]]) -> list[list[Any]]:
        """The block's sums after step p: one broadcast of A[i, p] times B's row p, per row."""
        b_line = builder.gep(b_ptr, [builder.mul(p, b_row)])
        b_vectors = [builder.load(vector_at(b_line, j * lanes), align=1) for j in range(_VECTORS)]
        a_column = builder.gep(a_ptr, [builder.mul(p, a_step)])
        updated = []
        for i in range(_ROWS):
            a_ip = builder.load(builder.gep(a_column, [builder.mul(ir.Constant(i64, i), a_row)]))
            one = builder.insert_element(undef, a_ip, ir.Constant(ir.IntType(32), 0))
            broadcast = builder.shuffle_vector(one, undef, splat_mask)
            updated.append(
                [
                    builder.call(fma, [broadcast, b, s])
                    for b, s in zip(b_vectors, sums[i], strict=True)
                ]
            )
        return updated

    def loop(name: Any, start: Any, stop: Any, sums: list[list[Any]], work: Any = None) -> Any:
        """Steps start <= p < stop (at least one) from `sums`, each also calling work(p): the
        sums after the last, and the block the loop leaves from."""
        before = builder.block
        body = builder.append_basic_block(name)
        after = builder.append_basic_block(name + ".done")
        builder.branch(body)
        builder.position_at_end(body)
        p = builder.phi(i64)
        p.add_incoming(start, before)
        running = [[builder.phi(vec) for _ in range(_VECTORS)] for _ in range(_ROWS)]
        for row, row_before in zip(running, sums, strict=True):
            for phi, value in zip(row, row_before, strict=True):
                phi.add_incoming(value, before)
        updated = products(p, running)
        if work is not None:
            work(p)
        p_next = builder.add(p, ir.Constant(i64, 1))
        latch = builder.block
        p.add_incoming(p_next, latch)
        for row, row_updated in zip(running, updated, strict=True):
            for phi, value in zip(row, row_updated, strict=True):
                phi.add_incoming(value, latch)
        builder.cbranch(builder.icmp_signed("<", p_next, stop), body, after)
        builder.position_at_end(after)
        return updated, after

    def merge(paths: list[tuple[list[list[Any]], Any]]) -> list[list[Any]]:
        """The sums where the control paths (sums, block) join."""
        merged = [[builder.phi(vec) for _ in range(_VECTORS)] for _ in range(_ROWS)]
        for sums, block in paths:
            for row, row_sums in zip(merged, sums, strict=True):
                for phi, value in zip(row, row_sums, strict=True):
                    phi.add_incoming(value, block)
        return merged

    none = ir.Constant(i64, 0)
    zeros = [[zero] * _VECTORS for _ in range(_ROWS)]
    depth = builder.select(builder.icmp_signed(">", depth, none), depth, none)
    exp_vectors = ir.Constant(i64, _ROWS * _VECTORS)
    start = none
    sums = zeros
    if exp_job is not None and _EXP_IN_PRODUCTS:
        e_ptr, e_row, e_rows, shift_ptr, sums_ptr = exp_job
        exp2 = _exp2_emitter(builder, bits, lanes, _EXP2_TABLE if bits == 32 else 1)

        def exp_vector(n: Any) -> None:
            """E's n-th vector (row n // _VECTORS, vector n % _VECTORS), when its row counts:
            without a branch (a row that does not count reads row 0, writes back what it read and
            adds 0 to the sums)."""
            vectors = ir.Constant(i64, _VECTORS)
            i, j = builder.udiv(n, vectors), builder.urem(n, vectors)
            counts = builder.icmp_signed("<", i, e_rows)
            i = builder.select(counts, i, none)
            column = builder.mul(j, ir.Constant(i64, lanes))
            target = vector_at(e_ptr, builder.add(builder.mul(i, e_row), column))
            shift = builder.load(vector_at(shift_ptr, column), align=1)
            x = builder.load(target, align=1)
            value = builder.select(counts, exp2(x, shift), x)
            builder.store(value, target, align=1)
            total = vector_at(sums_ptr, column)
            added = builder.select(counts, value, zero)
            builder.store(builder.fadd(builder.load(total, align=1), added), total, align=1)

        # The first steps each take one exponential (a loop of their own, so that the steps
        # after them keep every sum in a register); the rest follow a loop shorter than that.
        # (None of this when no row of E counts: the products alone, as without a job.)
        active = builder.icmp_signed(">", e_rows, none)
        start = builder.select(builder.icmp_signed("<", depth, exp_vectors), depth, exp_vectors)
        start = builder.select(active, start, none)
        entry = builder.block
        with builder.if_then(builder.icmp_signed(">", start, none)):
            with_exp = loop("block_product.exp", none, start, zeros, exp_vector)
        sums = merge([(zeros, entry), with_exp])
        with builder.if_then(active):
            one = ir.Constant(i64, 1)
            with cgutils.for_range_slice(builder, start, exp_vectors, one) as (n, _):
                exp_vector(n)
    entry = builder.block
    with builder.if_then(builder.icmp_signed("<", start, depth)):
        plain = loop("block_product.loop", start, depth, sums)
    totals = merge([(sums, entry), plain])
    for i in range(_ROWS):
        c_line = builder.gep(c_ptr, [builder.mul(ir.Constant(i64, i), c_row)])
        for j in range(_VECTORS):
            target = vector_at(c_line, j * lanes)
            total = totals[i][j]
            if accumulate:
                total = builder.fadd(builder.load(target, align=1), total)
            builder.store(total, target, align=1)
    if max_ptr is not None:
        # Skipped when no row counts (a branch per block, taken the same way for a whole tile).
        with builder.if_then(builder.icmp_signed(">", max_rows, ir.Constant(i64, 0))):
            for j in range(_VECTORS):
                target = vector_at(max_ptr, j * lanes)
                running = builder.load(target, align=1)
                for i in range(_ROWS):
                    counted = builder.icmp_signed("<", ir.Constant(i64, i), max_rows)
                    candidate = builder.select(counted, totals[i][j], running)
                    larger = builder.fcmp_ordered(">", candidate, running)
                    running = builder.select(larger, candidate, running)
                builder.store(running, target, align=1)


_product_add: Any = _block_product(accumulate=True)


def _product_set_max_typing(
    typingctx: Any,
    a: Any,
    a_start: Any,
    a_row_step: Any,
    a_depth_step: Any,
    b: Any,
    b_start: Any,
    b_row_step: Any,
    c: Any,
    c_start: Any,
    c_row_step: Any,
    depth: Any,
    m: Any,
    m_start: Any,
    rows: Any,
    e: Any,
    e_start: Any,
    e_row_step: Any,
    e_rows: Any,
    shift: Any,
    shift_start: Any,
    sums: Any,
    sums_start: Any,
) -> Any:
    """C = A B as _block_product, and while the block is still in registers m[m_start + j] =
    max(itself, C[i, j] for i < rows): the running maximum of each score column without another
    pass. With rows <= 0, m is left alone: a plain C = A B.

    In the same loop, the exponentials of another block E[i, j] = e[e_start + i·e_row_step + j]
    for i < e_rows: E[i, j] = 2^(E[i, j] - shift[shift_start + j]) and sums[sums_start + j] +=
    it (see _emit_block_product). With e_rows <= 0, E, shift and sums are left alone."""
    arrays = (a, b, c, m, e, shift, sums)
    if not all(isinstance(x, types.Array) for x in arrays) or not (
        len({x.dtype for x in arrays}) == 1 and c.dtype in (types.float32, types.float64)
    ):
        return None
    signature = types.void(
        a, a_start, a_row_step, a_depth_step, b, b_start, b_row_step, c, c_start, c_row_step,
        depth, m, m_start, rows, e, e_start, e_row_step, e_rows, shift, shift_start, sums,
        sums_start,
    )  # fmt: skip
    pointers = (0, 4, 7, 11, 14, 18, 20)  # each array's position; its start follows it

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ints = [
            None if n in pointers else context.cast(builder, v, t, types.int64)
            for n, (v, t) in enumerate(zip(args, sig.args, strict=True))
        ]
        a_ptr, b_ptr, c_ptr, m_ptr, e_ptr, shift_ptr, sums_ptr = (
            builder.gep(context.make_array(sig.args[n])(context, builder, args[n]).data,
                        [ints[n + 1]])
            for n in pointers
        )  # fmt: skip
        _emit_block_product(
            builder, a_ptr, ints[2], ints[3], b_ptr, ints[6], c_ptr, ints[9], ints[10],
            c.dtype.bitwidth, False, m_ptr, ints[13],
            (e_ptr, ints[16], ints[17], shift_ptr, sums_ptr),
        )  # fmt: skip
        return context.get_dummy_value()

    return signature, codegen


_product_set_max: Any = intrinsic(_product_set_max_typing)


# 2^x = 2^(n/N) · 2^f with n = round(N·x), f = x - n/N in [-1/2N, 1/2N]: 2^(n/N) from a table of
# N entries 2^(i/N) (i = n mod N) with n // N added to its exponent bits, and 2^f from a short
# polynomial. float32 takes N = the lanes of a vector (16 with AVX-512, 8 with AVX2: the table is
# one register, looked up by one variable permute, vpermps), where a degree-3 polynomial does
# what degree 6 did on [-1/2, 1/2] (N = 1): 4 multiply-adds per vector instead of 7. float64
# keeps N = 1 and a degree-13 polynomial. x is first raised to the floor -127 (-1023): there the
# exponent bits cancel to give exactly +0, so -inf (a masked score) and anything below the floor
# give 0 without a compare and select. Just above the floor the sum dips below the normal range
# and gives a value under 2^-125 (2^-1021) instead of 2^x: a weight that small against the row's
# largest, 1, is lost in rounding anyway.
_FLOOR_F32 = -127.0
_FLOOR_F64 = -1023.0
# q(f) with 2^f = 1 + f·q(f). float32, per table size: least squares at 4000 Chebyshev nodes of
# [-1/2N, 1/2N] weighted for the relative error of 2^f, then rounded to float32; largest
# relative error of 1 + f·q(f) in float64: 1.6e-9 (N = 16), 2.6e-8 (N = 8), 1.6e-8 (N = 1).
_Q_F32 = {
    16: (0.6931471824645996, 0.24023433029651642, 0.05550031363964081),
    8: (0.6931472420692444, 0.24025781452655792, 0.05548893287777901),
    1: (
        0.6931471824645996, 0.24022647738456726, 0.05550329014658928, 0.009618373587727547,
        0.0013399848248809576, 0.00015370704932138324,
    ),
}  # fmt: skip
# float64: Taylor's (ln 2)^(n+1) / (n+1)!, 4e-18 at f = 1/2.
_Q_F64 = tuple(math.log(2.0) ** (n + 1) / math.factorial(n + 1) for n in range(13))
# The variable permute a table of N float32 entries needs, by N (none for N = 1).
_PERMUTES = {16: "llvm.x86.avx512.permvar.sf.512", 8: "llvm.x86.avx2.permps"}


def _exp2_emitter(builder: Any, bits: int, lanes: int, table: int) -> Any:
    """A function (x, shift) -> 2^(x - shift) on IR vectors of `lanes` floats of `bits` bits,
    with a table of `table` entries (more than 1: float32 with a table of one vector).

    Per vector: y = max(x - shift, floor); s = y + 1.5·2^(m-b) (m mantissa bits, N = 2^b)
    rounds y to n/N in the low bits of s, so f = y - (s - 1.5·2^(m-b)) is in [-1/2N, 1/2N];
    the low b bits of s pick 2^((n mod N)/N) from the table, and s shifted left by m - b puts
    n // N in the exponent bits (and n mod N just below them, which each table entry has
    subtracted beforehand, so one integer add gives 2^(n/N)'s bits). Then 2^y = scale +
    scale·(f·q(f)): the last multiply-add rounds once, near the result. NaN stays NaN.
    """
    float_type, floor_value = (
        (ir.FloatType(), _FLOOR_F32) if bits == 32 else (ir.DoubleType(), _FLOOR_F64)
    )
    vec = ir.VectorType(float_type, lanes)
    ints = ir.VectorType(ir.IntType(bits), lanes)
    fma = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fmuladd.v{lanes}f{bits}"
    )
    mantissa = 23 if bits == 32 else 52
    low_bits = table.bit_length() - 1
    shift_bits = mantissa - low_bits
    q = _Q_F32[table] if bits == 32 else _Q_F64
    float_np, int_np = (np.float32, np.int32) if bits == 32 else (np.float64, np.int64)
    entries = [
        int(float_np(2.0 ** (i / table)).view(int_np)) - (i << shift_bits) for i in range(table)
    ]

    def splat(value: float | int, kind: Any = vec) -> Any:
        return ir.Constant(kind, [value] * lanes)

    magic, floor = splat(1.5 * 2.0**shift_bits), splat(floor_value)
    if table > 1:
        assert bits == 32 and lanes == table, "a table is one float32 vector"
        permute = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vec, [vec, ints]), _PERMUTES[table]
        )
        # The entries' bits as float32 constants (normal numbers), so no instruction is needed.
        table_vector = ir.Constant(vec, [float(np.int32(e).view(np.float32)) for e in entries])

    def exp2(x: Any, shift: Any) -> Any:
        y = builder.fsub(x, shift)
        y = builder.select(builder.fcmp_ordered(">", floor, y), floor, y)
        s = builder.fadd(y, magic)
        f = builder.fsub(y, builder.fsub(s, magic))
        s_bits = builder.bitcast(s, ints)
        high = builder.shl(s_bits, splat(shift_bits, ints))
        if table > 1:
            low = builder.bitcast(builder.call(permute, [table_vector, s_bits]), ints)
        else:
            low = splat(entries[0], ints)
        scale = builder.bitcast(builder.add(low, high), vec)
        poly = splat(q[-1])
        for c in reversed(q[:-1]):
            poly = builder.call(fma, [poly, f, splat(c)])
        return builder.call(fma, [scale, builder.fmul(poly, f), scale])

    return exp2


def _emit_exp2_strip(
    builder: Any,
    x_ptr: Any,
    first: Any,
    stop: Any,
    row: Any,
    shift_ptr: Any,
    col0: Any,
    col1: Any,
    sums_ptr: Any,
    bits: int,
    lanes: int,
    table: int,
) -> None:
    """The LLVM IR of x[j, c] = 2^(x[j, c] - shift[c]) and sums[c] += it, for first <= j < stop
    and col0 <= c < col1, in vectors of `lanes`: strip by strip of `lanes` columns, each strip
    down all its rows with shift[c] and the column sums held in registers (the last strip
    masked when the columns are not a whole number of vectors). x[j, c] is x_ptr[j·row + c]."""
    i64, i32 = ir.IntType(64), ir.IntType(32)
    vec = ir.VectorType(x_ptr.type.pointee, lanes)
    bools = ir.VectorType(ir.IntType(1), lanes)
    name = f"v{lanes}f{bits}.p0v{lanes}f{bits}"
    load_masked = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(vec, [vec.as_pointer(), i32, bools, vec]),
        f"llvm.masked.load.{name}",
    )
    store_masked = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(ir.VoidType(), [vec, vec.as_pointer(), i32, bools]),
        f"llvm.masked.store.{name}",
    )
    exp2 = _exp2_emitter(builder, bits, lanes, table)
    align = bits // 8

    def vector_at(base: Any, offset: Any) -> Any:
        return builder.bitcast(builder.gep(base, [offset]), vec.as_pointer())

    def strip(c: Any, mask: Any) -> None:
        """Columns c .. c + lanes - 1 (those of `mask` only, when given) down every row."""

        def load(pointer: Any) -> Any:
            if mask is None:
                return builder.load(pointer, align=align)
            return builder.call(
                load_masked, [pointer, ir.Constant(i32, align), mask, ir.Constant(vec, None)]
            )

        def store(value: Any, pointer: Any) -> None:
            if mask is None:
                builder.store(value, pointer, align=align)
            else:
                builder.call(store_masked, [value, pointer, ir.Constant(i32, align), mask])

        shift = load(vector_at(shift_ptr, c))
        start = load(vector_at(sums_ptr, c))
        entry = builder.block
        loop = builder.append_basic_block("exp2_strip.rows")
        done = builder.append_basic_block("exp2_strip.done")
        builder.cbranch(builder.icmp_signed("<", first, stop), loop, done)
        builder.position_at_end(loop)
        j = builder.phi(i64)
        j.add_incoming(first, entry)
        total = builder.phi(vec)
        total.add_incoming(start, entry)
        pointer = vector_at(x_ptr, builder.add(builder.mul(j, row), c))
        value = exp2(load(pointer), shift)
        store(value, pointer)
        added = builder.fadd(total, value)
        j_next = builder.add(j, ir.Constant(i64, 1))
        j.add_incoming(j_next, loop)
        total.add_incoming(added, loop)
        builder.cbranch(builder.icmp_signed("<", j_next, stop), loop, done)
        builder.position_at_end(done)
        result = builder.phi(vec)
        result.add_incoming(start, entry)
        result.add_incoming(added, loop)
        store(result, vector_at(sums_ptr, c))

    step = ir.Constant(i64, lanes)
    count = builder.sub(col1, col0)
    whole = builder.sub(col1, builder.srem(count, step))
    with cgutils.for_range_slice(builder, col0, whole, step) as (c, _):
        strip(c, None)
    with builder.if_then(builder.icmp_signed("<", whole, col1)):
        lane = ir.Constant(ir.VectorType(i64, lanes), list(range(lanes)))
        left = builder.insert_element(
            ir.Constant(ir.VectorType(i64, lanes), None), builder.sub(col1, whole),
            ir.Constant(i32, 0),
        )  # fmt: skip
        left = builder.shuffle_vector(
            left, ir.Constant(ir.VectorType(i64, lanes), ir.Undefined),
            ir.Constant(ir.VectorType(i32, lanes), [0] * lanes),
        )  # fmt: skip
        strip(whole, builder.icmp_signed("<", lane, left))


def _exp2_span_with(table: int) -> Any:
    """`_exp2_span` as a Numba intrinsic whose float32 code takes a table of `table` entries
    (16 or 8 need AVX-512's or AVX2's permute; 1 runs anywhere); float64 takes none."""

    def typing(
        typingctx: Any,
        x: Any,
        first: Any,
        stop: Any,
        shift: Any,
        col0: Any,
        col1: Any,
        sums: Any,
    ) -> Any:
        arrays = (x, shift, sums)
        if not all(isinstance(a, types.Array) for a in arrays) or not (
            x.dtype == shift.dtype == sums.dtype and x.dtype in (types.float32, types.float64)
        ):
            return None
        if (x.ndim, shift.ndim, sums.ndim) != (2, 1, 1) or x.layout != "C":
            return None
        bits = x.dtype.bitwidth
        entries = table if bits == 32 else 1
        lanes = entries if entries > 1 else _VECTOR_BYTES * 8 // bits

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            x_array = context.make_array(sig.args[0])(context, builder, args[0])
            row = builder.sdiv(
                cgutils.unpack_tuple(builder, x_array.strides, 2)[0],
                ir.Constant(ir.IntType(64), bits // 8),
            )
            first_, stop_, col0_, col1_ = (
                context.cast(builder, args[n], sig.args[n], types.int64) for n in (1, 2, 4, 5)
            )
            shift_ptr, sums_ptr = (
                context.make_array(sig.args[n])(context, builder, args[n]).data for n in (3, 6)
            )
            _emit_exp2_strip(
                builder, x_array.data, first_, stop_, row, shift_ptr, col0_, col1_, sums_ptr,
                bits, lanes, entries,
            )  # fmt: skip
            return context.get_dummy_value()

        return types.void(x, first, stop, shift, col0, col1, sums), codegen

    return intrinsic(typing)


# _exp2_span(x, first, stop, shift, col0, col1, sums): x[j, c] = 2^(x[j, c] - shift[c]) and
# sums[c] += it, for first <= j < stop and col0 <= c < col1 (x 2-D and C-contiguous).
_exp2_span: Any = _exp2_span_with(_EXP2_TABLE)

# The options of a function that only jitted code calls: no wrapper callable from Python or C
# (Numba compiles both for every function otherwise: 0.3 s of a cold compile per dtype), and
# no cache of its own (the kernel's cached code holds it).
_JIT_ONLY: dict[str, Any] = {"nogil": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}


@numba.njit(cache=True, nogil=True)
def _exp2_rows(x: Array, rows: int, shift: Array, width: int, sums: Array) -> None:
    """x[j, c] = 2^(x[j, c] - shift[c]) and sums[c] += it, for j < rows and c < width."""
    _exp2_span(x, 0, rows, shift, 0, width, sums)


@numba.njit(**_JIT_ONLY)
def _round_up(n: int, step: int) -> int:
    return (n + step - 1) // step * step


@numba.njit(**_JIT_ONLY)
def _set_shift(col_max: Array, shift: Array, first: int, stop: int) -> None:
    """shift[c] = col_max[c] for first <= c < stop, except that a query that has seen nothing
    yet keeps shift 0: 2^-inf = 0, never -inf - -inf."""
    for c in range(first, stop):
        shift[c] = col_max[c] if col_max[c] > -np.inf else 0.0


@numba.njit(**_JIT_ONLY)
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


def _fetch_add_typing(typingctx: Any, counter: Any, amount: Any) -> Any:
    """counter[0] += amount as one atomic step shared by all threads; the value before the step
    (with amount 0, a read that sees every write made before the other threads' steps)."""
    if not (
        isinstance(counter, types.Array)
        and counter.dtype == types.int64
        and isinstance(amount, types.Integer)
    ):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        step = context.cast(builder, args[1], signature.args[1], types.int64)
        return builder.atomic_rmw("add", data, step, "seq_cst")

    return types.int64(counter, amount), codegen


_fetch_add: Any = intrinsic(_fetch_add_typing)

# A call with few query tiles (one head, T up to a few thousand) cuts them into narrower tasks,
# so that each thread gets at least this many: a thread that starts late or loses its core to
# another job for a while then leaves the others less than one narrow task to wait for.
_TASKS_PER_THREAD = 4
_NARROWEST_TASK = 128  # query rows; narrower tasks cost more per query (K and V read more often)


def _task_rows(t_q: int, batch: int, block_q: int, threads: int) -> int:
    """Query rows per task: block_q, halved while that leaves some thread fewer than
    _TASKS_PER_THREAD tasks and the half keeps at least _NARROWEST_TASK rows. A query's result
    does not depend on which other queries share its task (each query has its own running max,
    sum and accumulator, over the same key tiles), so neither does the output."""
    rows = max(min(block_q, t_q), 1)
    while rows // 2 >= _NARROWEST_TASK and batch * ((t_q + rows - 1) // rows) < (
        _TASKS_PER_THREAD * threads
    ):
        rows = (rows + 1) // 2
    return rows


@numba.njit(cache=True, nogil=True)
def _task_tile(task: int, tiles: int) -> tuple[int, int]:
    """Task number -> (batch entry, query tile): entry by entry, and in each entry the last tile
    first. Under a causal mask a later tile sees more keys, so the costly tasks are handed out
    first and the cheap ones fill in at the end, on whichever thread is free."""
    return task // tiles, tiles - 1 - task % tiles


@numba.njit(cache=True, nogil=True)
def _flash_core(
    q_all: Array,
    k_all: Array,
    v_all: Array,
    mask_all: Array,
    q_of: Array,
    k_of: Array,
    v_of: Array,
    mask_of: Array,
    has_mask: bool,
    causal: bool,
    scale: np.floating[Any],
    task_rows: int,
    block_k: int,
    next_task: Array,
    finished: Array,
    out_all: Array,
) -> int:
    """One worker: take tasks from `next_task` until none is left, each filling
    out[b, q0:q1] = attention(q[q_of[b]], k[k_of[b]], v[v_of[b]], mask[mask_of[b]]) for the
    queries q0..q1-1 of one batch entry b (`task_rows` of them, fewer in the last tile).

    q_all is (Bq, T_q, d_k), k_all (Bk, T_k, d_k), v_all (Bv, T_k, d_v), mask_all (Bm, 1 or
    T_q, 1 or T_k) additive in base 2, out_all (B, T_q, d_v); the *_of arrays map each output
    batch entry to its inputs. `scale` is log2(e) / sqrt(d_k).

    Every thread of a call runs this with the same arguments (_run_workers): each allocates
    its scratch once, then takes the next task (a query tile of one batch entry) from the shared
    counter until none is left, so a thread that is slowed down takes fewer tasks instead of
    holding the others up. It holds no GIL, so the threads run at once. Each finished task
    adds one to `finished`; the worker returns that count as it stops: when it is the number of
    tasks, `out_all` is complete and no thread will write to it again.

    Scratch: q_t (d_k × W) the transposed query tile, scores (≥ block_k × W) the transposed
    score tile S^T, acc (W × padded d_v) the running weighted sum of value rows, spare_k and
    spare_v zero-padded copies of rows that the block product cannot read in place; per query,
    col_max (the running max), col_sum (float64), shift, factor (2 × W) and tile_sum.

    One function, the task's work written inside the task loop: a jitted function of its own
    would be optimised and turned into machine code once alone and again inside this one (a
    sixth of a cold compile), and Numba's `inline="always"` costs more than that.
    """
    batch, t_q = out_all.shape[:2]
    d_k, d_v = q_all.shape[2], v_all.shape[2]
    nr = _COLUMNS_32 if q_all.itemsize == 4 else _COLUMNS_64
    tiles = (t_q + task_rows - 1) // task_rows
    tasks = batch * tiles
    # Query columns: whole panels of nr for S^T, whole blocks of _ROWS for P V. (np.int64(_ROWS):
    # a plain constant would make Numba compile _round_up once more for that literal value.)
    scratch_width = _round_up(_round_up(task_rows, nr), np.int64(_ROWS))
    key_rows = _round_up(block_k, np.int64(_ROWS))
    width_acc = _round_up(d_v, nr)
    spare_v_rows = 0 if d_v % nr == 0 else block_k
    # Rows of the query and score tiles: a whole, odd number of 64-byte lines (see the top).
    line_floats = 64 // q_all.itemsize
    stride = ((scratch_width + line_floats - 1) // line_floats | 1) * line_floats
    dtype = q_all.dtype
    q_t = np.empty((d_k, stride), dtype=dtype)
    scores = np.empty((key_rows, stride), dtype=dtype)
    acc = np.empty((scratch_width, width_acc), dtype=dtype)
    spare_k = np.empty((_ROWS, d_k), dtype=dtype)
    spare_v = np.empty((spare_v_rows, width_acc), dtype=dtype)
    col_max = np.empty(scratch_width, dtype=dtype)
    col_sum = np.empty(scratch_width, dtype=np.float64)
    shift = np.empty(scratch_width, dtype=dtype)
    factor = np.empty((2, scratch_width), dtype=dtype)
    tile_sum = np.empty(scratch_width, dtype=dtype)
    task = _fetch_add(next_task, 1)
    while task < tasks:
        # The task: queries q0..q1-1 of batch entry b, written into out[q0:q1].
        b, tile = _task_tile(task, tiles)
        q0 = tile * task_rows
        q1 = min(q0 + task_rows, t_q)
        q, k, v, mask = q_all[q_of[b]], k_all[k_of[b]], v_all[v_of[b]], mask_all[mask_of[b]]
        out = out_all[b]
        t_k, d_k, d_v = k.shape[0], k.shape[1], v.shape[1]
        rows = q1 - q0
        offset = t_k - q.shape[0]
        nr = _COLUMNS_32 if q.itemsize == 4 else _COLUMNS_64
        columns = _round_up(rows, nr)  # query columns the score products fill
        width_s, width_acc = scores.shape[1], acc.shape[1]
        v_in_place = d_v % nr == 0
        row_step = 1 if mask.shape[0] > 1 else 0
        col_step = 1 if mask.shape[1] > 1 else 0

        for c in range(d_k):
            for r in range(rows):
                q_t[c, r] = q[q0 + r, c] * scale
            for r in range(rows, q_t.shape[1]):
                q_t[c, r] = 0.0
        col_max[:] = -np.inf
        col_sum[:] = 0.0
        acc[:, :] = 0.0
        if not v_in_place:
            spare_v[:, :] = 0.0

        # With a causal mask, query i sees keys j <= i + offset: tiles right of the last query's
        # diagonal are never touched.
        k_stop = min(t_k, q1 + offset) if causal else t_k
        for k0 in range(0, max(k_stop, 0), block_k):
            width = min(block_k, k_stop - k0)
            if has_mask and _tile_is_blocked(mask, q0, q1, k0, k0 + width, causal, offset):
                continue
            # Key rows of this tile that some query of the tile sees.
            seen = min(width, q0 + rows + offset - k0) if causal else width
            if seen <= 0:
                continue

            for c in range(columns):
                factor[0, c] = col_max[c]
            # With no mask and every key of the tile seen by every query of it, the column maxima
            # are taken as the score blocks leave the registers, not in a pass of their own.
            max_in_product = not has_mask and (not causal or k0 + seen - 1 <= q0 + offset)

            # S^T = K_tile (scale · Q_tile)^T, panel by panel of nr queries, each against every
            # block of _ROWS keys it sees: the panel's rows of Q^T (d_k × nr) stay in L1 for the
            # whole tile. Panel by panel is 4.5% less time per call than block by block with AVX2
            # (T = 2048, one thread), and the same with AVX-512.
            last = seen - 1 - (seen - 1) % _ROWS  # the tile's last block of keys
            if k0 + last + _ROWS > t_k:
                spare_k[:, :] = 0.0
                # Element by element, not as a slice copy: a slice copy makes Numba compile its
                # shape-mismatch error path (~2.5 s of a cold compile), and these copies are rare.
                for r in range(t_k - k0 - last):
                    for e in range(d_k):
                        spare_k[r, e] = k[k0 + last + r, e]
            # Blocks of keys read in place, then the tile's last block from spare_k when it runs
            # past T_k. Each array is named at its own call: an array variable rebound inside the
            # loop costs Numba reference counts (atomic, through calls) on every block.
            in_place = last if k0 + last + _ROWS > t_k else last + _ROWS
            max_seen = seen if max_in_product else 0  # key rows a block's column maxima count
            # Where the maxima come with the products, a panel's maxima are final once its products
            # are done: its exponentials are then taken by the next panel's block products, each
            # block of the previous panel in the loop of the same block of this one, in the shadow
            # of the products' multiply-adds (`exp_rows`: rows of the previous panel's block; none
            # for the first panel, and none where the maxima need a pass of their own).
            in_products = max_in_product and _EXP_IN_PRODUCTS
            tile_sum[:] = 0.0
            for qp in range(0, columns, nr):
                reach = min(seen, q0 + min(qp + nr, rows) + offset - k0) if causal else seen
                before = max(qp - nr, 0)
                exp_rows = seen if in_products and qp > 0 else 0
                for kb in range(0, min(reach, in_place), _ROWS):
                    _product_set_max(
                        k, (k0 + kb) * d_k, d_k, 1, q_t, qp, q_t.shape[1], scores,
                        kb * width_s + qp, width_s, d_k, col_max, qp, max_seen - kb,
                        scores, kb * width_s + before, width_s, exp_rows - kb, shift, before,
                        tile_sum, before,
                    )  # fmt: skip
                if reach > in_place:
                    _product_set_max(
                        spare_k, 0, d_k, 1, q_t, qp, q_t.shape[1], scores,
                        last * width_s + qp, width_s, d_k, col_max, qp, max_seen - last,
                        scores, last * width_s + before, width_s, exp_rows - last, shift, before,
                        tile_sum, before,
                    )  # fmt: skip
                if in_products:
                    _set_shift(col_max, shift, qp, qp + nr)
            if in_products:
                # the last panel
                _exp2_span(scores, 0, seen, shift, columns - nr, columns, tile_sum)
            else:
                # Online softmax, one key row of S^T at a time, in vectors across the queries.
                for j in range(0 if max_in_product else seen):
                    line = scores[j]
                    if has_mask:
                        key = (k0 + j) * col_step
                        for c in range(rows):
                            line[c] += mask[(q0 + c) * row_step, key]
                    if causal:
                        # Key k0 + j is hidden from queries before k0 + j - offset.
                        line[: max(min(k0 + j - offset - q0, columns), 0)] = -np.inf
                    for c in range(columns):
                        col_max[c] = max(col_max[c], line[c])
                _set_shift(col_max, shift, np.int64(0), columns)  # not a literal 0 (see top)
                _exp2_span(scores, 0, seen, shift, 0, columns, tile_sum)
            # factor = 2^(old max - new max) rescales what was accumulated (factor[1]: a scratch).
            _exp2_span(factor, 0, 1, shift, 0, columns, factor[1])
            for c in range(rows):
                col_sum[c] = col_sum[c] * factor[0, c] + tile_sum[c]
                if factor[0, c] != 1.0:
                    for e in range(width_acc):
                        acc[c, e] *= factor[0, c]

            # acc += P V, in runs of _PV_RUN keys, each block of _ROWS queries over the keys of the
            # run that its last query sees.
            if v_in_place:
                values, v_start, v_step = v, k0 * d_v, d_v
            else:
                for r in range(width):  # element by element, as spare_k above
                    for e in range(d_v):
                        spare_v[r, e] = v[k0 + r, e]
                values, v_start, v_step = spare_v, 0, width_acc
            for p0 in range(0, seen, _PV_RUN):
                for qb in range(0, rows, _ROWS):
                    depth = min(seen, q0 + min(qb + _ROWS, rows) + offset - k0) if causal else seen
                    run = min(depth - p0, _PV_RUN)
                    if run <= 0:
                        continue
                    for cb in range(0, width_acc, nr):
                        _product_add(
                            scores, p0 * width_s + qb, 1, width_s, values,
                            v_start + p0 * v_step + cb, v_step, acc, qb * width_acc + cb, width_acc,
                            run,
                        )  # fmt: skip

        for r in range(rows):
            # A query with no visible key has col_sum 0: 0/0 is NaN, as in the reference.
            total = col_sum[r]
            for e in range(d_v):
                out[q0 + r, e] = acc[r, e] / total if total > 0.0 else np.nan

        _fetch_add(finished, 1)
        task = _fetch_add(next_task, 1)
    return _fetch_add(finished, 0)


# The threads that run _flash_core beside the calling thread, started on first use. A forked
# child has none of its parent's threads, so it starts its own.
_helpers: ThreadPoolExecutor | None = None
_helpers_lock = threading.Lock()


def _forget_helpers() -> None:
    global _helpers, _helpers_lock
    _helpers, _helpers_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_helpers)


def _run_workers(worker: Any, workers: int, tasks: int, args: tuple[Any, ...]) -> None:
    """worker(*args) on `workers` threads at once: this one and workers - 1 helpers.

    `worker` is a jitted function without the GIL that takes tasks from a shared counter, like
    _flash_core, and returns how many of the `tasks` were finished (by any thread) when it ran
    out. The caller works too, so a call finishes even when the helpers are busy with another
    thread's call. Then a helper that has not started yet is cancelled, and one still on a task
    is waited for. One that has started but has nothing left to do is not waited for: it writes
    nothing more, and a wake-up would be a good part of a small call's time.
    """
    global _helpers
    if workers <= 1:
        worker(*args)
        return
    with _helpers_lock:
        if _helpers is None:
            ceiling: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
            most = max(ceiling - 1, 1)  # set_num_threads allows no more than the ceiling
            _helpers = ThreadPoolExecutor(most, thread_name_prefix="flash-attention")
        helpers = [_helpers.submit(worker, *args) for _ in range(workers - 1)]
    done = 0
    try:
        done = worker(*args)
    finally:
        running = [helper for helper in helpers if not helper.cancel()]
        if done < tasks:
            for helper in running:
                helper.result()


def _as_core_array(a: Array, dtype: Any) -> Array:
    """`a` as a C-contiguous, writeable 3-D array of `dtype` (leading dims flattened).

    Numba compiles one version per array type (dtype, layout, read-only or not); normalising
    here means each dtype compiles exactly once.
    """
    a = np.ascontiguousarray(a, dtype=dtype).reshape(math.prod(a.shape[:-2]), *a.shape[-2:])
    return a if a.flags.writeable else a.copy()


def _batch_index(lead: tuple[int, ...], batch_shape: tuple[int, ...]) -> Array:
    """For each entry of the flattened `batch_shape`, its flat index in an array led by `lead`."""
    count = math.prod(lead)
    # The two common cases without broadcasting machinery (a fifth of a small call's time).
    if count == 1:
        return np.zeros(math.prod(batch_shape), dtype=np.int64)
    if lead == batch_shape:
        return np.arange(count, dtype=np.int64)
    own = np.arange(count, dtype=np.int64).reshape(lead)
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
        m = m * dtype.type(_LOG2E)  # the kernel's scores are in base 2

    leads = [a.shape[:-2] for a in (q, k, v, m)]
    batch_shape = np.broadcast_shapes(*leads)
    out = np.empty((math.prod(batch_shape), t_q, d_v), dtype=dtype)
    if out.size:
        q_of, k_of, v_of, mask_of = (_batch_index(lead, batch_shape) for lead in leads)
        threads = numba.get_num_threads()
        rows = _task_rows(t_q, len(out), int(block_q), threads)
        tasks = len(out) * -(-t_q // rows)
        next_task, finished = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        args = (
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
            dtype.type(_LOG2E) / np.sqrt(dtype.type(d_k)),
            rows,
            int(block_k),
            next_task,
            finished,
            out,
        )
        _run_workers(_flash_core, min(threads, tasks), tasks, args)
    return out.reshape((*batch_shape, t_q, d_v))
