"""This machine's peak: sgemm GFLOP/s and memory bandwidth, measured once and cached.

The figures are the yardstick for `submit` timings ("your code reaches 12% of this CPU's peak")
and for the roofline (machine balance = peak FLOP/s / bandwidth).
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from attention_ref.bounded_read import read_at_most

CACHE_VERSION = 1


@dataclass(frozen=True)
class Machine:
    sgemm_gflops: float
    bandwidth_gbs: float
    blas: str
    core_type: str
    threads: int
    cpu: str

    @property
    def balance(self) -> float:
        """FLOPs the CPU can do per byte it can move: above this intensity code is compute-bound."""
        return self.sgemm_gflops / self.bandwidth_gbs

    def describe(self) -> str:
        return (
            f"{self.cpu}; {self.blas} ({self.core_type}, {self.threads} threads); "
            f"sgemm peak {self.sgemm_gflops:.0f} GFLOP/s, memory {self.bandwidth_gbs:.1f} GB/s"
        )


def _blas_info() -> tuple[str, str, int]:
    from threadpoolctl import threadpool_info

    for pool in threadpool_info():
        if pool.get("user_api") == "blas":
            name = f"{pool.get('internal_api', 'blas')} {pool.get('version') or ''}".strip()
            return name, str(pool.get("architecture") or "unknown core"), int(pool["num_threads"])
    return "unknown BLAS", "unknown core", os.cpu_count() or 1


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _best_seconds(run: Any, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure() -> Machine:
    import numpy as np

    n = 1536
    rng = np.random.default_rng(0)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    np.matmul(a, b, out=out)  # warm up the BLAS threads
    gemm = _best_seconds(lambda: np.matmul(a, b, out=out), 7)
    big = np.ones(32 * 2**20, dtype=np.float64)  # 256 MiB: far beyond any cache
    dst = np.empty_like(big)
    copy = _best_seconds(lambda: np.copyto(dst, big), 5)
    blas, core, threads = _blas_info()
    return Machine(
        sgemm_gflops=2 * n**3 / gemm / 1e9,
        bandwidth_gbs=2 * big.nbytes / copy / 1e9,  # a copy reads and writes every byte
        blas=blas,
        core_type=core,
        threads=threads,
        cpu=_cpu_name(),
    )


def _key() -> str:
    import numpy as np

    blas, core, threads = _blas_info()
    env = os.environ.get("OPENBLAS_CORETYPE", "")
    parts = (CACHE_VERSION, _cpu_name(), os.cpu_count(), np.__version__, blas, core, threads, env)
    return "|".join(str(p) for p in parts)


def this_machine(cache_dir: Path | None = None) -> Machine:
    """The cached measurement for this CPU and BLAS setup, measuring it the first time."""
    if cache_dir is None:
        from platformdirs import user_cache_dir

        cache_dir = Path(user_cache_dir("attnquiz", appauthor=False))
    path = cache_dir / "machine.json"
    key = _key()
    try:
        # The cache is the user's file: read at most a little of a regular file, and anything
        # it holds but a whole measurement of this machine only means measuring again.
        cached = json.loads(read_at_most(path, 2**16) or b"")
        if isinstance(cached, dict) and cached.get("key") == key:
            return Machine(**cached["machine"])
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        pass
    machine = measure()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"key": key, "machine": asdict(machine)}))
    except OSError:
        pass  # an unwritable cache only means measuring again next time
    return machine
