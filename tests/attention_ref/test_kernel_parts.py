"""The flash kernel's parts: its polynomial exp, its block product, how it hands out work.

The end-to-end agreement with the reference is in test_kernel.py; these pin down the pieces
that make the kernel fast, so a regression in one shows up by name.
"""

from __future__ import annotations

import functools
from typing import Any

import numba
import numpy as np
import pytest

from attention_ref.kernel import (
    _COLUMNS_32,
    _COLUMNS_64,
    _EXP2_TABLE,
    _EXP_IN_PRODUCTS,
    _NARROWEST_TASK,
    _ROWS,
    _TASKS_PER_THREAD,
    _exp2_rows,
    _exp2_span_with,
    _fetch_add,
    _product_add,
    _product_set_max,
    _run_workers,
    _task_rows,
    _task_tile,
    _vector_bytes,
    flash_attention,
)
from attention_ref.reference import attention


def polynomial_exp2(x: np.ndarray) -> np.ndarray:
    """The kernel's 2^x of every entry of a 1-D array, as one row (float32: its one-row loop)."""
    tile = x.reshape(1, -1).copy()
    sums = np.zeros(x.size, dtype=x.dtype)
    _exp2_rows(tile, 1, np.zeros(x.size, dtype=x.dtype), x.size, sums)
    # The row function also adds each value to its column.
    assert np.array_equal(sums, tile[0], equal_nan=True)
    return tile[0]


# The float32 2^x with each table size this CPU can run: the kernel's own (16 entries with
# AVX-512, 8 with AVX2), and the others an AVX2 or older CPU would use (1: no permute at all).
TABLES = sorted({_EXP2_TABLE, 1} | ({8} if _EXP2_TABLE == 16 else set()))


@functools.cache
def table_row(table: int) -> Any:
    span = _exp2_span_with(table)

    @numba.njit
    def row(tile, sums):  # type: ignore[no-untyped-def]
        span(tile, 0, 1, np.zeros(tile.shape[1], dtype=np.float32), 0, tile.shape[1], sums)

    return row


def table_exp2(x: np.ndarray, table: int) -> np.ndarray:
    if table == _EXP2_TABLE:
        return polynomial_exp2(x)
    tile = x.reshape(1, -1).copy()
    sums = np.zeros(x.size, dtype=np.float32)
    table_row(table)(tile, sums)
    assert np.array_equal(sums, tile[0], equal_nan=True)
    return tile[0]


@pytest.mark.parametrize("table", TABLES)
def test_the_float32_exp2_is_within_float32_rounding_down_to_the_underflow_cut_off(
    table: int,
) -> None:
    # 2^-125 (exp(-86.6)) is the smallest value the kernel keeps exactly in float32.
    x = np.linspace(-125.0, 0.0, 400_001, dtype=np.float32)
    exact = np.exp2(x.astype(np.float64))
    relative = np.abs(table_exp2(x, table) / exact - 1.0)
    # float32 rounding alone is 6e-8; two roundings plus the polynomial's own error stay < 2e-7.
    assert relative.max() < 2e-7
    assert table_exp2(np.zeros(3, dtype=np.float32), table)[0] == 1.0
    # Masked (-inf) and vanishing scores give exactly 0; NaN stays NaN.
    edges = table_exp2(np.array([-np.inf, -1e4, -150.0, np.nan], dtype=np.float32), table)
    assert np.array_equal(edges[:3], np.zeros(3)) and np.isnan(edges[3])


@pytest.mark.parametrize("table", TABLES)
def test_the_float32_exp2_rounds_halfway_scores_either_way_within_float32_rounding(
    table: int,
) -> None:
    # x = n/N + 1/2N (N table entries) is where round-to-nearest hands the table index and
    # f = x - n/N over to the next one: the polynomial must hold at both ends of its interval,
    # and just either side of each.
    halves = np.arange(-124.0 * table, 1.0, dtype=np.float32) / np.float32(table) - np.float32(
        0.5 / table
    )
    x = np.concatenate(
        [halves, np.nextafter(halves, np.float32(0.0)), np.nextafter(halves, np.float32(-200.0))]
    )
    exact = np.exp2(x.astype(np.float64))
    assert np.abs(table_exp2(x, table) / exact - 1.0).max() < 2e-7


def test_the_float64_exp2_is_within_a_few_float64_roundings() -> None:
    x = np.linspace(-1021.0, 0.0, 400_001)
    relative = np.abs(polynomial_exp2(x) / np.exp2(x) - 1.0)
    assert relative.max() < 1e-15


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 2, 5])
def test_a_tile_of_rows_gets_each_row_s_exp2_and_the_column_sums(rows: int, dtype: Any) -> None:
    # The kernel's exponentials go through _exp2_rows, which takes float32 rows two at a time
    # (and a last odd row alone): every row must come out as the one-row loop gives it (a span
    # of one row, passed as a one-row view).
    rng = np.random.default_rng(5)
    width = 37  # not a whole number of vectors: the loops' remainders are used too
    tile = np.zeros((rows + 1, width + 3), dtype=dtype)
    tile[:rows, :width] = rng.uniform(-30.0, 0.0, (rows, width))
    tile[0, 0] = -np.inf
    shift = rng.uniform(-2.0, 2.0, width + 3).astype(dtype)
    exact = np.exp2(tile[:rows, :width].astype(np.float64) - shift[:width])
    expected = tile.copy()
    expected_sums = np.full(width + 3, 0.5, dtype=dtype)
    for j in range(rows):
        _exp2_rows(expected[j : j + 1], 1, shift, width, expected_sums)
    sums = np.full(width + 3, 0.5, dtype=dtype)
    _exp2_rows(tile, rows, shift, width, sums)
    assert np.array_equal(tile, expected)  # rows past `rows`, columns past `width` untouched
    rtol = 1e-6 if dtype == np.float32 else 1e-15
    np.testing.assert_allclose(tile[:rows, :width], exact, rtol=rtol)
    np.testing.assert_allclose(sums, expected_sums, rtol=rtol)
    assert np.array_equal(sums[width:], np.full(3, 0.5, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_exp2_of_a_masked_or_vanishing_score_is_exactly_zero(dtype: Any) -> None:
    x = np.array([-np.inf, -1e4, -1200.0, -150.0], dtype=dtype)
    out = polynomial_exp2(x)
    assert out[0] == out[1] == out[2] == 0.0
    assert out[3] == (0.0 if dtype == np.float32 else pytest.approx(np.exp2(-150.0), rel=1e-15))


@numba.njit
def product_set_max(  # type: ignore[no-untyped-def]
    a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth, m, m0, rows,
    e, e0, e_row, e_rows, shift, shift0, sums, sums0,
):  # fmt: skip
    # One jitted caller for every test of _product_set_max (one compile per dtype).
    _product_set_max(
        a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth, m, m0, rows,
        e, e0, e_row, e_rows, shift, shift0, sums, sums0,
    )  # fmt: skip


def set_product(a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth):  # type: ignore[no-untyped-def]
    # No row counts toward a maximum (rows = 0), no other block's exponentials (e_rows = 0):
    # the kernel's plain C = A B.
    m = np.empty(c.shape[1], dtype=c.dtype)
    product_set_max(
        a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth, m, 0, 0, c, 0, 0, 0, m, 0, m, 0
    )


@numba.njit
def add_product(a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth):  # type: ignore[no-untyped-def]
    _product_add(a, a0, a_row, a_step, b, b0, b_row, c, c0, c_row, depth)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("depth", [0, 1, 7, 64])
@pytest.mark.parametrize("a_transposed", [False, True], ids=["A by rows", "A by columns"])
def test_the_block_product_is_a_matrix_product_inside_bigger_arrays(
    dtype: Any, accumulate: bool, depth: int, a_transposed: bool
) -> None:
    """C = A B (or C += A B) on one block: A read along its rows (as K is)
    or down its columns (as S^T is), B and C rows with a stride, nothing else written."""
    rng = np.random.default_rng(depth)
    nr = _COLUMNS_32 if dtype == np.float32 else _COLUMNS_64
    side = depth + 9  # a_store is side × side
    a_store = rng.standard_normal((side, side)).astype(dtype)
    b_store = rng.standard_normal((depth + 2, nr + 9)).astype(dtype)
    c_store = rng.standard_normal((_ROWS + 4, nr + 7)).astype(dtype)
    before = c_store.copy()
    if a_transposed:  # A[i, p] = a_store[1 + p, 2 + i]
        a = a_store[1 : 1 + depth, 2 : 2 + _ROWS].T
        a0, a_row, a_step = 1 * side + 2, 1, side
    else:  # A[i, p] = a_store[2 + i, 1 + p]
        a = a_store[2 : 2 + _ROWS, 1 : 1 + depth]
        a0, a_row, a_step = 2 * side + 1, side, 1
    b_width, c_width = b_store.shape[1], c_store.shape[1]
    (add_product if accumulate else set_product)(
        a_store, a0, a_row, a_step, b_store, 2 * b_width + 5, b_width,
        c_store, 1 * c_width + 3, c_width, depth,
    )  # fmt: skip
    b = b_store[2 : 2 + depth, 5 : 5 + nr]
    block = (slice(1, 1 + _ROWS), slice(3, 3 + nr))
    expected = a @ b + (before[block] if accumulate else 0.0)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c_store[block], expected, rtol=rtol, atol=rtol * (depth + 1))
    untouched = np.ones(c_store.shape, dtype=bool)
    untouched[block] = False
    assert np.array_equal(c_store[untouched], before[untouched])


def set_product_max(a, b, c, c0, c_row, m, m0, rows):  # type: ignore[no-untyped-def]
    product_set_max(
        a, 0, a.shape[1], 1, b, 0, b.shape[1], c, c0, c_row, a.shape[1], m, m0, rows,
        c, 0, 0, 0, m, 0, m, 0,
    )  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 4, _ROWS])
def test_the_block_product_can_raise_a_running_column_maximum_over_its_first_rows(
    dtype: Any, rows: int
) -> None:
    """S^T's columns maxima taken as the block leaves the registers: only rows < `rows` count
    (the rest are keys past the tile), and a column keeps its old maximum when that is larger."""
    rng = np.random.default_rng(rows)
    nr = _COLUMNS_32 if dtype == np.float32 else _COLUMNS_64
    a = rng.standard_normal((_ROWS, 5)).astype(dtype)
    b = rng.standard_normal((5, nr)).astype(dtype)
    c = np.zeros((_ROWS, nr + 2), dtype=dtype)
    m = rng.standard_normal(nr + 3).astype(dtype)
    m[1:7] = -np.inf  # columns that have seen nothing yet
    m[7] = 1e9  # a column whose running maximum no score here reaches
    before = m.copy()
    set_product_max(a, b, c, 1, nr + 2, m, 1, rows)
    product = a @ b
    np.testing.assert_allclose(c[:, 1 : 1 + nr], product, rtol=1e-5)
    expected = before.copy()
    if rows:
        expected[1 : 1 + nr] = np.maximum(before[1 : 1 + nr], c[:rows, 1 : 1 + nr].max(axis=0))
    assert np.array_equal(m, expected)
    assert m[7] == 1e9


def product_with_exp2(a, b, c, e, e0, e_row, e_rows, shift, sums, depth):  # type: ignore[no-untyped-def]
    m = np.empty(c.shape[1], dtype=c.dtype)
    product_set_max(
        a, 0, a.shape[1], 1, b, 0, b.shape[1], c, 0, c.shape[1], depth, m, 0, 0,
        e, e0, e_row, e_rows, shift, 1, sums, 1,
    )  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("e_rows", "depth"), [(0, 64), (4, 7), (_ROWS, 64)])
def test_the_block_product_takes_another_block_s_exponentials_as_exp2_rows_would(
    dtype: Any, e_rows: int, depth: int
) -> None:
    """With AVX-512 the kernel takes a panel's exponentials inside the next panel's block
    products: the block E (rows < e_rows only) must come out as _exp2_rows gives it, its column
    sums too, whether the product's loop is longer than the block (64) or shorter (7), and the
    product must stay C = A B. Elsewhere the products leave E alone."""
    rng = np.random.default_rng(e_rows + depth)
    nr = _COLUMNS_32 if dtype == np.float32 else _COLUMNS_64
    a = rng.standard_normal((_ROWS, depth)).astype(dtype)
    b = rng.standard_normal((depth, nr)).astype(dtype)
    c = np.zeros((_ROWS, nr), dtype=dtype)
    scores = rng.uniform(-30.0, 0.0, (_ROWS + 2, nr + 5)).astype(dtype)
    scores[1, 3] = -np.inf
    shift = rng.uniform(-2.0, 2.0, nr + 2).astype(dtype)
    sums = np.full(nr + 2, 0.5, dtype=dtype)
    expected, expected_sums = scores.copy(), sums.copy()
    block = expected[1 : 1 + e_rows, 2 : 2 + nr]
    if e_rows and _EXP_IN_PRODUCTS:
        inner_sums = expected_sums[1 : 1 + nr].copy()
        inner = np.ascontiguousarray(block)
        _exp2_rows(inner, e_rows, shift[1 : 1 + nr].copy(), nr, inner_sums)
        block[:] = inner
        expected_sums[1 : 1 + nr] = inner_sums
    product_with_exp2(
        a, b, c, scores, 1 * scores.shape[1] + 2, scores.shape[1], e_rows, shift, sums, depth
    )
    assert np.array_equal(scores, expected)  # and nothing outside the block's rows < e_rows
    assert np.array_equal(sums, expected_sums)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c, a @ b, rtol=rtol, atol=rtol * (depth + 1))


@numba.njit(nogil=True)
def _claim_everything(next_task: np.ndarray, finished: np.ndarray, taken: np.ndarray) -> int:
    """A worker as the kernel's: claim numbers until they run out, count each one it got."""
    n = _fetch_add(next_task, 1)
    while n < taken.size:
        taken[n] += 1
        _fetch_add(finished, 1)
        n = _fetch_add(next_task, 1)
    return _fetch_add(finished, 0)


def test_threads_claiming_tasks_from_the_shared_counter_get_each_task_exactly_once() -> None:
    taken = np.zeros(200_000, dtype=np.int64)
    next_task, finished = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    threads = max(numba.get_num_threads(), 2)
    _run_workers(_claim_everything, threads, taken.size, (next_task, finished, taken))
    assert np.array_equal(taken, np.ones_like(taken))
    assert finished[0] == taken.size
    # each worker that ran took one number past the end before it stopped; the caller always runs
    assert taken.size + 1 <= next_task[0] <= taken.size + threads


@numba.njit(nogil=True)
def _meet(next_task: np.ndarray, finished: np.ndarray, workers: int) -> int:
    """Claim one number, then wait until every worker has claimed one: this ends only if all
    `workers` run at the same time, or else after 2^32 spins (seconds) with finished short."""
    _fetch_add(next_task, 1)
    for _ in range(2**32):
        if _fetch_add(next_task, 0) >= workers:
            _fetch_add(finished, 1)
            break
    return _fetch_add(finished, 0)


def test_the_workers_of_a_call_run_at_the_same_time() -> None:
    # A helper that ran only after the caller's worker had returned would leave the caller
    # spinning alone; one that never started would be cancelled with next_task short.
    workers = max(numba.config.NUMBA_NUM_THREADS, 2)  # as many as a call can have
    next_task, finished = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    _run_workers(_meet, workers, workers, (next_task, finished, workers))
    assert next_task[0] == workers
    assert finished[0] == workers


@pytest.mark.parametrize(("batch", "tiles"), [(1, 1), (1, 7), (3, 16)])
def test_tasks_cover_every_tile_once_the_costliest_of_each_entry_first(
    batch: int, tiles: int
) -> None:
    order = [_task_tile(task, tiles) for task in range(batch * tiles)]
    assert sorted(order) == [(b, t) for b in range(batch) for t in range(tiles)]
    # Under a causal mask a later query tile sees more keys: each entry's tiles go last to first.
    for b in range(batch):
        assert [t for e, t in order if e == b] == list(range(tiles - 1, -1, -1))


@pytest.mark.parametrize(
    ("t_q", "batch", "block_q", "threads", "rows"),
    [
        (2048, 1, 256, 2, 256),  # 8 tiles: 4 per thread already
        (2048, 1, 256, 4, 128),  # 16 narrower tasks for 4 threads
        (512, 1, 256, 2, 128),  # never narrower than _NARROWEST_TASK
        (4096, 64, 256, 2, 256),  # a batch gives plenty of tasks
        (100, 1, 256, 2, 100),  # one short tile stays one tile
        (50, 3, 4, 2, 4),  # a small block_q the caller chose is kept
    ],
)
def test_few_query_tiles_are_cut_into_narrower_tasks_so_every_thread_gets_several(
    t_q: int, batch: int, block_q: int, threads: int, rows: int
) -> None:
    got = _task_rows(t_q, batch, block_q, threads)
    assert got == rows
    tasks = batch * -(-t_q // got)
    assert tasks >= _TASKS_PER_THREAD * threads or got // 2 < _NARROWEST_TASK or got == t_q


@pytest.mark.usefixtures("flash_kernel")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_default_tiles_over_several_partial_tiles_with_a_mask_agree_with_the_reference(
    causal: bool, dtype: Any
) -> None:
    rng = np.random.default_rng(11)
    Q = rng.standard_normal((2, 700, 32)).astype(dtype)
    K = rng.standard_normal((2, 900, 32)).astype(dtype)
    V = rng.standard_normal((2, 900, 24)).astype(dtype)
    keep = rng.random((2, 1, 900)) < 0.7
    keep[..., 256:512] = False  # one whole key tile blocked
    out = flash_attention(Q, K, V, keep, causal=causal)
    q, k, v = (a.astype(np.float64) for a in (Q, K, V))
    expected = attention(q, k, v, keep, causal=causal)
    assert isinstance(expected, np.ndarray)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=rtol * np.abs(v).max())


@pytest.mark.parametrize(
    ("cpu_name", "features", "expected"),
    [
        ("skylake-avx512", "+avx,+avx2,+fma,+avx512f,+avx512vl", 64),
        ("haswell", "+avx,+avx2,+fma,-avx512f", 32),
        ("generic", None, 16),  # a named CPU without its features: nothing beyond SSE2 assumed
    ],
)
def test_the_block_shape_follows_the_vector_width_numba_compiles_for(
    monkeypatch: pytest.MonkeyPatch, cpu_name: str, features: str | None, expected: int
) -> None:
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", cpu_name, raising=False)
    monkeypatch.setattr(config, "CPU_FEATURES", features, raising=False)
    assert _vector_bytes() == expected


def test_without_a_named_cpu_the_vector_width_is_the_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    from llvmlite import binding as llvm
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", None, raising=False)
    monkeypatch.setattr(config, "CPU_FEATURES", None, raising=False)
    host = llvm.get_host_cpu_features()
    assert _vector_bytes() == (64 if host.get("avx512f") else 32 if host.get("avx2") else 16)
