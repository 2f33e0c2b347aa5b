"""Plain compiled loops with the CBLAS gemm signature, for when NumPy brings no usable OpenBLAS.

`kernel_blas.link` binds the flash kernel's gemm names to these only as a last resort: they give
the same numbers as BLAS up to rounding order, at a fraction of its speed. Only what the kernel
uses is supported: row-major storage (CBLAS order 101), A not transposed, B transposed (112) or
not (111). Each function is compiled on first request (not cached: it is a rare path).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numba
from numba import types

_NO_TRANSPOSE = 111  # CBLAS: B as stored; 112 means B transposed


def _gemm_loops(real: Any) -> Any:
    pointer = types.CPointer(real)
    signature = types.void(
        types.int32,
        types.int32,
        types.int32,
        types.int64,
        types.int64,
        types.int64,
        real,
        pointer,
        types.int64,
        pointer,
        types.int64,
        real,
        pointer,
        types.int64,
    )

    def gemm(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):  # type: ignore[no-untyped-def]
        for i in range(m):
            for j in range(n):
                total = real(0.0)
                for p in range(k):
                    b_pj = b[p * ldb + j] if trans_b == _NO_TRANSPOSE else b[j * ldb + p]
                    total += a[i * lda + p] * b_pj
                if beta == 0.0:
                    c[i * ldc + j] = alpha * total
                else:
                    c[i * ldc + j] = alpha * total + beta * c[i * ldc + j]

    return numba.cfunc(signature)(gemm)


@cache
def gemm_f32() -> Any:
    return _gemm_loops(types.float32)


@cache
def gemm_f64() -> Any:
    return _gemm_loops(types.float64)
