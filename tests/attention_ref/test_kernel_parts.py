"""The flash kernel's parts: its polynomial exp, its tile order, its use of BLAS.

The end-to-end agreement with the reference is in test_kernel.py; these pin down the pieces
that make the kernel fast, so a regression in one shows up by name.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from attention_ref import kernel_fallback_gemm
from attention_ref.kernel import (
    _balanced_tile,
    _exp_shifted_row_f32,
    _exp_shifted_row_f64,
    _row_max,
    flash_attention,
)
from attention_ref.reference import attention


def polynomial_exp(x: np.ndarray) -> np.ndarray:
    """The kernel's exp of every entry of a 1-D array, through its row function."""
    tile = x.reshape(1, -1).copy()
    row_exp = _exp_shifted_row_f32 if x.dtype == np.float32 else _exp_shifted_row_f64
    row_exp(tile, 0, tile.shape[1], x.dtype.type(0.0))
    return tile[0]


def test_the_float32_exp_is_within_float32_rounding_down_to_the_underflow_cut_off() -> None:
    x = np.linspace(-87.0, 0.0, 400_001, dtype=np.float32)
    exact = np.exp(x.astype(np.float64))
    relative = np.abs(polynomial_exp(x) / exact - 1.0)
    # float32 rounding alone is 6e-8; two roundings plus the polynomial's own error stay < 2e-7.
    assert relative.max() < 2e-7
    assert polynomial_exp(np.zeros(3, dtype=np.float32))[0] == 1.0


def test_the_float64_exp_is_within_a_few_float64_roundings() -> None:
    x = np.linspace(-708.0, 0.0, 400_001)
    relative = np.abs(polynomial_exp(x) / np.exp(x) - 1.0)
    assert relative.max() < 1e-15


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_exp_of_a_masked_or_vanishing_score_is_exactly_zero(dtype: Any) -> None:
    x = np.array([-np.inf, -1e4, -800.0, -100.0], dtype=dtype)
    out = polynomial_exp(x)
    assert out[0] == out[1] == out[2] == 0.0
    assert out[3] == (0.0 if dtype == np.float32 else pytest.approx(np.exp(-100.0), rel=1e-15))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_row_max_through_integer_images_is_the_float_max(dtype: Any) -> None:
    rng = np.random.default_rng(13)
    rows = (rng.standard_normal((6, 37)) * 50).astype(dtype)
    rows[1] = -np.inf  # a fully masked row
    rows[2, :30] = -np.inf
    rows[3] = -np.abs(rows[3])  # only negatives
    rows[4, :] = 0.0
    rows[4, 5] = -0.0
    low = dtype(-np.inf)
    for r in range(rows.shape[0]):
        assert _row_max(rows, r, 37, low) == rows[r].max()
        assert _row_max(rows, r, 37, dtype(1e9)) == 1e9
        assert _row_max(rows, r, 0, dtype(-3.0)) == -3.0
    assert _row_max(rows, 5, 10, low) == rows[5, :10].max()


@pytest.mark.parametrize("tiles", [1, 2, 7, 16])
def test_tiles_are_visited_first_last_second_so_halves_carry_equal_causal_work(tiles: int) -> None:
    order = [_balanced_tile(p, tiles) for p in range(tiles)]
    assert sorted(order) == list(range(tiles))
    # Under a causal mask, tile i costs ~ i + 1 key tiles: each consecutive pair costs the same,
    # so equal contiguous shares of the order carry equal work.
    pairs = {order[p] + order[p + 1] for p in range(0, tiles - 1, 2)}
    assert pairs <= {tiles - 1}


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool.get("user_api") == "blas"]


def test_the_kernel_leaves_the_process_wide_blas_thread_count_alone() -> None:
    before = blas_threads()
    x = np.random.default_rng(0).standard_normal((8, 600, 32)).astype(np.float32)
    for _ in range(3):
        flash_attention(x, x, x)
    assert blas_threads() == before


def test_concurrent_kernel_calls_restore_the_blas_thread_count_once_all_are_done() -> None:
    before = blas_threads()
    x = np.random.default_rng(1).standard_normal((4, 700, 32)).astype(np.float32)
    expected = flash_attention(x, x, x)
    if numba.threading_layer() == "workqueue":
        pytest.skip("Numba's workqueue layer cannot run parallel regions from several threads")
    results: list[np.ndarray] = []

    def call() -> None:
        for _ in range(3):
            results.append(flash_attention(x, x, x))

    workers = [threading.Thread(target=call) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert blas_threads() == before
    assert len(results) == 9
    assert all(np.array_equal(r, expected) for r in results)


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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_the_fallback_gemm_loops_compute_what_blas_computes(transpose_b: bool, dtype: Any) -> None:
    rng = np.random.default_rng(12)
    a = rng.standard_normal((5, 7)).astype(dtype)
    b = rng.standard_normal((3, 7) if transpose_b else (7, 3)).astype(dtype)
    c = rng.standard_normal((5, 3)).astype(dtype)
    loops = (
        kernel_fallback_gemm.gemm_f32() if dtype == np.float32 else kernel_fallback_gemm.gemm_f64()
    )
    real = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    expected = 0.5 * a @ (b.T if transpose_b else b) + 2.0 * c
    loops.ctypes(
        101, 111, 112 if transpose_b else 111, 5, 3, 7, real(0.5),
        a.ctypes.data_as(ctypes.POINTER(real)), 7,
        b.ctypes.data_as(ctypes.POINTER(real)), b.shape[1], real(2.0),
        c.ctypes.data_as(ctypes.POINTER(real)), 3,
    )  # fmt: skip
    np.testing.assert_allclose(c, expected, rtol=1e-5 if dtype == np.float32 else 1e-12)
