"""The Numba flash kernel computes what the NumPy reference computes, for every shape and mask.

Tolerances: float64 outputs agree with the reference to rtol 1e-12; float32 outputs agree with the
float64 reference on the same float32 inputs to rtol 1e-5. Each output row is a weighted average
of V's rows, so rounding errors are measured against the size of V: the absolute slack is
rtol × max|V| (an element that cancels to near 0 cannot be held to a relative bound). Measured at
T = 2048, d = 64: max error / max|V| is ~1e-16 for float64 and ~4e-8 for float32.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_ref.kernel import _flash_core, flash_attention
from attention_ref.reference import attention

DTYPES = [np.float32, np.float64]
RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


# Compiled (or loaded from Numba's cache) for both dtypes once, before the tests below.
pytestmark = pytest.mark.usefixtures("flash_kernel")


def random_inputs(
    rng: np.random.Generator,
    lead: tuple[int, ...],
    t_q: int,
    t_k: int,
    d_k: int,
    d_v: int,
    dtype: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        rng.standard_normal((*lead, t_q, d_k)).astype(dtype),
        rng.standard_normal((*lead, t_k, d_k)).astype(dtype),
        rng.standard_normal((*lead, t_k, d_v)).astype(dtype),
    )


def assert_matches_reference(
    out: np.ndarray,
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    mask: Any = None,
    *,
    causal: bool = False,
) -> None:
    """out agrees with the float64 reference computed on the same (possibly float32) inputs."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    with np.errstate(invalid="ignore"):  # the reference's 0/0 for rows that see no key
        expected = attention(q, k, v, mask, causal=causal)
    assert isinstance(expected, np.ndarray)
    assert out.shape == expected.shape
    assert out.dtype == np.result_type(Q, K, V, np.float32)
    rtol = RTOL[out.dtype]
    scale = float(np.abs(v).max()) if v.size else 1.0
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=rtol * scale, equal_nan=True)
    assert np.array_equal(np.isnan(out), np.isnan(expected))


# (lead dims, T_q, T_k, d_k, d_v, block_q, block_k)
SHAPES = {
    "square, T a multiple of the tiles": ((), 32, 32, 8, 8, 8, 8),
    "T not divisible by either tile": ((), 37, 29, 16, 16, 8, 5),
    "T_q < T_k and d_v != d_k": ((), 5, 23, 8, 3, 4, 4),
    "T_q > T_k": ((), 23, 5, 6, 9, 4, 4),
    "one query, one key": ((), 1, 1, 4, 4, 4, 4),
    "one query, many keys": ((), 1, 19, 4, 2, 4, 4),
    "many queries, one key": ((), 19, 1, 4, 2, 4, 4),
    "tiles larger than T": ((), 10, 12, 4, 4, 64, 64),
    "tiles of one element": ((), 7, 9, 3, 2, 1, 1),
    "batched 3-D": ((3,), 11, 13, 8, 5, 4, 4),
    "multi-head 4-D": ((2, 3), 13, 17, 8, 4, 4, 8),
    "default tiles": ((2,), 70, 130, 16, 16, 64, 64),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_the_kernel_agrees_with_the_reference_on_every_shape(
    shape: tuple[Any, ...], causal: bool, dtype: Any
) -> None:
    lead, t_q, t_k, d_k, d_v, block_q, block_k = shape
    Q, K, V = random_inputs(np.random.default_rng(t_q * 100 + t_k), lead, t_q, t_k, d_k, d_v, dtype)
    out = flash_attention(Q, K, V, causal=causal, block_q=block_q, block_k=block_k)
    assert_matches_reference(out, Q, K, V, causal=causal)


def mask_of_kind(
    kind: str, rng: np.random.Generator, shape: tuple[int, ...], dtype: Any
) -> np.ndarray:
    """A random mask; about a third of the entries blocked, whole blocked tiles included."""
    keep = rng.random(shape) < 0.65
    keep[..., :4, 8:16] = False  # at least one fully blocked 4x8 tile
    if kind == "boolean":
        return keep
    if kind == "additive":
        return np.where(keep, 0.0, -np.inf).astype(dtype)
    # Any finite additive bias is allowed too, with -inf where blocked.
    return np.where(keep, rng.standard_normal(shape), -np.inf).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["boolean", "additive", "bias"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(
    ("lead", "mask_shape"),
    [
        ((), (21, 27)),
        ((2, 3), (2, 3, 21, 27)),
        ((2, 3), (3, 21, 27)),  # one mask per head, shared by the batch
        ((2, 3), (2, 1, 1, 27)),  # key padding, broadcast over heads and queries
        ((2,), (21, 1)),  # per-query mask, broadcast over keys
    ],
    ids=["2-D", "full 4-D", "per head", "key padding", "per query"],
)
def test_masks_of_either_convention_and_any_broadcast_give_the_reference(
    lead: tuple[int, ...], mask_shape: tuple[int, ...], kind: str, causal: bool, dtype: Any
) -> None:
    rng = np.random.default_rng(7)
    Q, K, V = random_inputs(rng, lead, 21, 27, 8, 6, dtype)
    mask = mask_of_kind(kind, rng, mask_shape, dtype)
    out = flash_attention(Q, K, V, mask, causal=causal, block_q=4, block_k=8)
    assert_matches_reference(out, Q, K, V, mask, causal=causal)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_row_with_every_key_masked_is_nan_like_the_reference(dtype: Any) -> None:
    rng = np.random.default_rng(3)
    Q, K, V = random_inputs(rng, (), 9, 11, 4, 4, dtype)
    keep = np.ones((9, 11), dtype=bool)
    keep[2] = False
    keep[5, :] = False
    out = flash_attention(Q, K, V, keep, block_q=2, block_k=3)
    assert np.isnan(out[[2, 5]]).all()
    assert np.isfinite(np.delete(out, [2, 5], axis=0)).all()
    assert_matches_reference(out, Q, K, V, keep)


def test_no_keys_at_all_gives_nan_rows() -> None:
    out = flash_attention(np.ones((3, 2)), np.ones((0, 2)), np.ones((0, 4)))
    assert out.shape == (3, 4)
    assert np.isnan(out).all()


def test_causal_with_more_queries_than_keys_leaves_the_first_queries_blind() -> None:
    # Query i sees keys j <= i + (T_k - T_q) = i - 4: queries 0..3 see nothing.
    Q, K, V = random_inputs(np.random.default_rng(4), (), 10, 6, 4, 3, np.float64)
    out = flash_attention(Q, K, V, causal=True, block_q=3, block_k=2)
    assert np.isnan(out[:4]).all()
    assert np.isfinite(out[4:]).all()
    assert_matches_reference(out, Q, K, V, causal=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_scores_stay_finite_and_inside_the_values_hull(dtype: Any) -> None:
    rng = np.random.default_rng(5)
    Q, K, V = random_inputs(rng, (2,), 40, 50, 16, 8, dtype)
    Q, K = Q * 100, K * 100  # scores ~1e4 to 1e5: exp() would overflow without the running max
    out = flash_attention(Q, K, V, block_q=8, block_k=16)
    assert np.isfinite(out).all()
    # Every output row is a convex combination of V's rows.
    slack = 1e-5 if dtype == np.float32 else 1e-12
    assert (out >= V.min(axis=-2, keepdims=True) - slack).all()
    assert (out <= V.max(axis=-2, keepdims=True) + slack).all()
    if dtype == np.float64:
        # A score of ~1e5 carries ~1e-11 absolute rounding, which becomes that much relative
        # error in its weight: the bound scales with the scores, not with eps alone.
        expected = attention(Q, K, V)
        np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-9 * np.abs(V).max())


def test_one_medium_case_of_t_2048_agrees_in_float32() -> None:
    Q, K, V = random_inputs(np.random.default_rng(6), (), 2048, 2048, 64, 64, np.float32)
    out = flash_attention(Q, K, V, causal=True)
    assert_matches_reference(out, Q, K, V, causal=True)


def test_the_result_does_not_depend_on_the_thread_count() -> None:
    Q, K, V = random_inputs(np.random.default_rng(8), (3,), 50, 60, 8, 8, np.float64)
    many = flash_attention(Q, K, V, causal=True, block_q=4, block_k=8)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = flash_attention(Q, K, V, causal=True, block_q=4, block_k=8)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, many)


def test_calls_from_several_threads_at_once_each_get_their_own_result() -> None:
    # The helper threads are shared by every call of the process: a call whose helpers are busy
    # with another thread's call does its tasks itself, and nothing writes to a result after
    # its call has returned.
    rng = np.random.default_rng(12)
    inputs = [random_inputs(rng, (2,), 300, 310, 16, 12, np.float32) for _ in range(4)]

    def run(qkv: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        return flash_attention(*qkv, causal=True, block_q=32, block_k=32)

    alone = [run(qkv) for qkv in inputs]
    with ThreadPoolExecutor(len(inputs)) as pool:
        together = list(pool.map(run, inputs * 5))
    for out, expected in zip(together, alone * 5, strict=True):
        assert np.array_equal(out, expected)


def test_any_array_like_input_is_accepted_and_typed_like_the_reference() -> None:
    rng = np.random.default_rng(9)
    Q, K, V = random_inputs(rng, (), 6, 7, 3, 2, np.float64)
    readonly = V.copy()
    readonly.flags.writeable = False
    strided = np.asfortranarray(K)
    out = flash_attention(Q.tolist(), strided, readonly, block_q=4, block_k=4)
    assert_matches_reference(out, Q, K, V)
    ints = flash_attention(np.ones((2, 2), dtype=int), np.eye(2, dtype=int), np.eye(2, dtype=int))
    assert ints.dtype == np.float64
    halves = flash_attention(*(a.astype(np.float16) for a in (Q, K, V)))
    assert halves.dtype == np.float32


def test_leading_dims_broadcast_like_the_reference() -> None:
    rng = np.random.default_rng(10)
    Q = rng.standard_normal((2, 3, 5, 4))
    K, V = rng.standard_normal((3, 6, 4)), rng.standard_normal((1, 6, 2))
    out = flash_attention(Q, K, V, block_q=2, block_k=4)
    assert_matches_reference(out, Q, K, V)


def test_every_input_form_reuses_one_compiled_version_per_dtype() -> None:
    # Inputs are made C-contiguous and writeable before the jitted core, so the variety of the
    # tests above compiled (or loaded) the core at most once for float32 and once for float64.
    assert len(_flash_core.signatures) <= 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2))), "d_k"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2))), "T_k"),
        ((np.ones(4), np.ones((5, 4)), np.ones((5, 2))), "at least 2"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((2, 5))), "mask"),
    ],
)
def test_inconsistent_shapes_are_refused_with_a_readable_message(
    args: tuple[Any, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        flash_attention(*args)


def test_tile_sizes_must_be_positive() -> None:
    x = np.ones((2, 2))
    with pytest.raises(ValueError, match="tile"):
        flash_attention(x, x, x, block_q=0)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lead=st.sampled_from([(), (2,), (2, 2)]),
    t_q=st.integers(1, 24),
    t_k=st.integers(1, 24),
    d_k=st.integers(1, 9),
    d_v=st.integers(1, 9),
    block_q=st.integers(1, 9),
    block_k=st.integers(1, 9),
    mask_kind=st.sampled_from(["none", "boolean", "additive"]),
    causal=st.booleans(),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_shapes_tiles_and_masks_agree_with_the_reference(
    lead: tuple[int, ...],
    t_q: int,
    t_k: int,
    d_k: int,
    d_v: int,
    block_q: int,
    block_k: int,
    mask_kind: str,
    causal: bool,
    dtype: Any,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    Q, K, V = random_inputs(rng, lead, t_q, t_k, d_k, d_v, dtype)
    mask = None
    if mask_kind != "none":
        keep = rng.random((*lead, t_q, t_k)) < 0.8
        mask = keep if mask_kind == "boolean" else np.where(keep, 0.0, -np.inf).astype(dtype)
    out = flash_attention(Q, K, V, mask, causal=causal, block_q=block_q, block_k=block_k)
    assert_matches_reference(out, Q, K, V, mask, causal=causal)
