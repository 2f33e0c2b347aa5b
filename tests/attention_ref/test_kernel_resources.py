"""What the flash kernel costs: nothing at import, one compile per machine, O(T·d) memory.

Each check runs in a fresh interpreter, so what it measures (imports, compiled signatures, peak
resident memory) is not blurred by the rest of the test session: one interpreter for the import,
cache and memory checks (`fresh_process`), one for the AVX2 build.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

# Compiles and measures the kernel in fresh processes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `code` in a fresh interpreter (with `env` added to the environment); it prints one
    JSON object as its last line."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=None if env is None else {**os.environ, **env},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


@pytest.fixture(scope="module")
def fresh_process(flash_kernel: None) -> dict[str, Any]:
    """What one fresh interpreter sees, in this order: importing the package, then the kernel
    module; both dtypes' kernels loaded from the cache this test run has written (flash_kernel,
    beside attention_ref/kernel.py or in the user or NUMBA_CACHE_DIR cache); then the peak
    resident memory of a T = 2048 call of the kernel and of the reference. One interpreter for
    the three checks below: each step reads only what its own step changed (modules, cache
    statistics, a peak reset just before the call), and an interpreter that imports NumPy and
    Numba and loads the kernel costs about half a second of CPU."""
    return run_python(
        """
        import json, os, re, sys
        import attention_ref
        light = not {"numpy", "numba"} & set(sys.modules)
        from attention_ref import kernel
        compiled = [
            name for name, f in vars(kernel).items()
            if hasattr(f, "signatures") and f.signatures
        ]

        import numpy as np
        from attention_ref.kernel import _flash_core, flash_attention
        from attention_ref.reference import attention
        for dtype in (np.float32, np.float64):
            x = np.ones((3, 2), dtype=dtype)
            flash_attention(x, x, x)
        stats = _flash_core.stats
        cache = {
            "hits": sum(stats.cache_hits.values()),
            "misses": sum(stats.cache_misses.values()),
        }

        def peak_growth_kib(call):
            if not os.path.exists("/proc/self/clear_refs"):
                return None  # not Linux: the memory check below is skipped
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # reset the peak to the current resident size
            status = open("/proc/self/status").read()
            before = int(re.search(r"VmRSS:\\s+(\\d+)", status).group(1))
            call()
            status = open("/proc/self/status").read()
            return int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1)) - before

        rng = np.random.default_rng(0)
        Q, K, V = (rng.standard_normal((2048, 64), dtype=np.float32) for _ in range(3))
        flash_attention(Q[:8], K[:8], V[:8])  # the threads started first
        memory = {
            "kernel": peak_growth_kib(lambda: flash_attention(Q, K, V)),
            "reference": peak_growth_kib(lambda: attention(Q, K, V)),
        }
        print(json.dumps({
            "import": {"light": light, "compiled": compiled}, "cache": cache, "memory": memory,
        }))
        """
    )


def test_importing_the_package_loads_nothing_heavy_and_the_kernel_compiles_nothing(
    fresh_process: dict[str, Any],
) -> None:
    assert fresh_process["import"] == {"light": True, "compiled": []}


def test_a_second_process_loads_the_compiled_kernel_from_the_cache(
    fresh_process: dict[str, Any],
) -> None:
    # This test run has compiled the kernel for both dtypes (flash_kernel), which writes Numba's
    # on-disk cache. A new process must find it.
    assert fresh_process["cache"] == {"hits": 2, "misses": 0}


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_the_kernel_never_holds_a_t_by_t_matrix(fresh_process: dict[str, Any]) -> None:
    # Numba allocates through its own runtime, out of tracemalloc's sight, so the honest measure
    # is the process's peak resident memory (VmHWM), reset just before each call. A T x T float32
    # score matrix at T = 2048 is 16 MiB; the reference, measured the same way, must show it,
    # and the kernel (output 0.5 MiB plus a few tiles per thread) must stay far below it.
    memory = fresh_process["memory"]
    t_by_t_kib = 2048 * 2048 * 4 // 1024
    assert memory["reference"] >= t_by_t_kib
    assert memory["kernel"] < t_by_t_kib // 8


# What Numba is told to compile for when it must not use AVX-512: a Haswell-class CPU.
AVX2_FEATURES = "+avx,+avx2,+fma,+f16c,+bmi,+bmi2,+popcnt,+sse4.1,+sse4.2,+ssse3,-avx512f"


def test_the_avx2_build_of_the_kernel_agrees_with_the_reference(tmp_path: Path) -> None:
    # The block product's width follows the CPU Numba compiles for, so on an AVX-512 host the
    # AVX2 build (2 vectors of 8 float32 or 4 float64 per block row) never runs by itself. Here
    # a fresh process compiles the kernel for a Haswell-class CPU, with a private cache, and
    # checks its code uses 256-bit registers only and its results against the reference, with
    # tiles, T and d_v that leave partial panels and blocks everywhere. Both dtypes: each has
    # AVX2 code of its own (<8 x float> and <4 x double> FMAs) and a panel width of its own
    # (16 and 8 queries; 64 and 32 with AVX-512), which no other test runs on such a host. The
    # code checked is the worker's, with everything it calls linked in: the code that runs.
    from llvmlite import binding as llvm

    if not llvm.get_host_cpu_features().get("avx2"):
        pytest.skip("this CPU cannot run AVX2 code")
    answer = run_python(
        """
        import json
        import numpy as np
        from attention_ref import kernel
        from attention_ref.reference import attention

        errors = {}
        rng = np.random.default_rng(4)
        for dtype in (np.float32, np.float64):
            Q = rng.standard_normal((2, 300, 24)).astype(dtype)
            K = rng.standard_normal((2, 290, 24)).astype(dtype)
            V = rng.standard_normal((2, 290, 20)).astype(dtype)
            keep = rng.random((2, 1, 290)) < 0.8
            for causal in (False, True):
                out = kernel.flash_attention(Q, K, V, keep, causal=causal, block_q=128, block_k=96)
                q, k, v = (a.astype(np.float64) for a in (Q, K, V))
                with np.errstate(invalid="ignore"):  # a query whose keys are all masked: 0/0
                    expected = attention(q, k, v, keep, causal=causal)
                key = f"{np.dtype(dtype).name} {'causal' if causal else 'full'}"
                same_nans = bool(np.array_equal(np.isnan(out), np.isnan(expected)))
                error = np.nanmax(np.abs(out - expected)) / np.abs(v).max()
                errors[key] = float(error) if same_nans else 1.0
        code = "".join(
            kernel._flash_core.inspect_asm(signature) for signature in kernel._flash_core.signatures
        )
        print(json.dumps({
            "vector_bytes": kernel._VECTOR_BYTES,
            "errors": errors,
            "zmm": code.count("zmm"),
            "ymm_fma": sum("vfmadd" in line and "ymm" in line for line in code.splitlines()),
        }))
        """,
        env={
            "NUMBA_CPU_NAME": "haswell",
            "NUMBA_CPU_FEATURES": AVX2_FEATURES,
            "NUMBA_CACHE_DIR": str(tmp_path),
        },
    )
    assert answer["vector_bytes"] == 32
    assert answer["zmm"] == 0
    assert answer["ymm_fma"] > 0
    for key, error in answer["errors"].items():
        assert error < (1e-5 if key.startswith("float32") else 1e-12), key
