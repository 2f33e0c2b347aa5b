"""Lend NumPy's own BLAS to the Numba kernel, under link names the kernel declares.

The flash kernel does its two block products (scores = Q_tile K_tile^T and out += P V_tile) with
sgemm/dgemm. Numba offers `np.dot` only through SciPy, which attnquiz does not depend on, so the
kernel declares external C functions by name (`numba.types.ExternalFunction`) and this module
tells LLVM where they live: in the OpenBLAS that NumPy's wheels ship (`libscipy_openblas64_`,
64-bit integers, CBLAS interface), found through threadpoolctl or in `numpy.libs`. Because the
compiled kernel refers to the functions by name, not by address, Numba's on-disk cache stays
valid across processes; `link` must only run before the first call in each process.

When NumPy's BLAS is not that OpenBLAS (a conda NumPy on MKL, an old wheel), the same names are
bound to small compiled loops instead (`kernel_fallback_gemm`): still correct, just not fast.

Threads: inside the kernel, each of Numba's worker threads runs its own BLAS calls, so BLAS must
not start threads of its own there. `single_threaded_blas` sets OpenBLAS to one thread for the
whole process while the kernel runs and puts the count back afterwards (nested or concurrent
kernel calls share one setting: the first in saves, the last out restores). A NumPy product in
another Python thread meanwhile runs on one BLAS thread. `openblas_set_num_threads_local` looks
like the finer tool, but in OpenBLAS 0.3.31's pthreads build it sets the same global count:
workers restoring their "previous" count race, and the process was left on 1 thread.
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

# (symbol prefix, symbol suffix) of the OpenBLAS builds with 64-bit integers that NumPy ships.
_OPENBLAS_NAMINGS = (("scipy_", "64_"), ("", "64_"))


@dataclass(frozen=True)
class BlasBinding:
    """What `link` bound the kernel's names to."""

    library: str  # a file path, or "fallback loops"
    set_num_threads: Callable[..., Any] | None  # process-wide thread count, when there is one
    get_num_threads: Callable[..., Any] | None


_binding: BlasBinding | None = None
_limit_lock = threading.Lock()
_limit_depth = 0
_threads_before = 0


def _candidate_libraries() -> list[str]:
    """OpenBLAS files NumPy has loaded (as threadpoolctl sees them), then those in numpy.libs."""
    import numpy as np
    from threadpoolctl import threadpool_info

    loaded = [
        pool["filepath"]
        for pool in threadpool_info()
        if pool.get("internal_api") == "openblas" and pool.get("filepath")
    ]
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    return loaded + sorted(glob.glob(os.path.join(libs, "lib*openblas64_*")))


def _numpy_openblas() -> tuple[ctypes.CDLL, str, str, str] | None:
    for path in _candidate_libraries():
        for prefix, suffix in _OPENBLAS_NAMINGS:
            try:
                lib = ctypes.CDLL(path)
                getattr(lib, f"{prefix}cblas_sgemm{suffix}")
                getattr(lib, f"{prefix}cblas_dgemm{suffix}")
            except (OSError, AttributeError):
                continue
            return lib, path, prefix, suffix
    return None


def _address(function: Any) -> int:
    address = ctypes.cast(function, ctypes.c_void_p).value
    assert address is not None
    return address


def link(sgemm_name: str, dgemm_name: str) -> BlasBinding:
    """Bind the kernel's external names (once per process) and say what they were bound to."""
    global _binding
    if _binding is not None:
        return _binding
    from llvmlite import binding as llvm

    found = _numpy_openblas()
    if found is None:
        from attention_ref import kernel_fallback_gemm as loops

        llvm.add_symbol(sgemm_name, loops.gemm_f32().address)
        llvm.add_symbol(dgemm_name, loops.gemm_f64().address)
        _binding = BlasBinding("fallback loops", None, None)
        return _binding

    lib, path, prefix, suffix = found
    llvm.add_symbol(sgemm_name, _address(getattr(lib, f"{prefix}cblas_sgemm{suffix}")))
    llvm.add_symbol(dgemm_name, _address(getattr(lib, f"{prefix}cblas_dgemm{suffix}")))
    set_threads = getattr(lib, f"{prefix}openblas_set_num_threads{suffix}", None)
    get_threads = getattr(lib, f"{prefix}openblas_get_num_threads{suffix}", None)
    if set_threads is None or get_threads is None:
        set_threads = get_threads = None
    else:
        get_threads.restype = ctypes.c_int
    _binding = BlasBinding(path, set_threads, get_threads)
    return _binding


@contextmanager
def single_threaded_blas(binding: BlasBinding) -> Iterator[None]:
    """OpenBLAS on one thread while the block runs, its previous count restored after."""
    global _limit_depth, _threads_before
    if binding.set_num_threads is None or binding.get_num_threads is None:
        yield
        return
    with _limit_lock:
        if _limit_depth == 0:
            _threads_before = binding.get_num_threads()
            binding.set_num_threads(ctypes.c_int(1))
        _limit_depth += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_depth -= 1
            if _limit_depth == 0 and _threads_before > 0:
                binding.set_num_threads(ctypes.c_int(_threads_before))
