"""Every variant that benchmarks/attention.py times computes attention (float64 reference)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from attention_ref.reference import attention

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "attention.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("attention_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def inputs(dtype: type) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(6)
    return tuple(rng.normal(size=(2, 3, 96, 64)).astype(dtype) for _ in range(3))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("variant", ["kernel", "reference", "naive"])
def test_each_timed_variant_matches_the_float64_reference(bench, variant, causal) -> None:
    q, k, v = inputs(np.float32)
    truth = attention(*(a.astype(np.float64) for a in (q, k, v)), causal=causal)
    got = bench._runner(variant, causal)(q, k, v)
    np.testing.assert_allclose(got, truth, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_torch_matches_too_when_installed(bench, causal) -> None:
    pytest.importorskip("torch", reason="torch is the optional `bench` extra")
    q, k, v = inputs(np.float32)
    truth = attention(*(a.astype(np.float64) for a in (q, k, v)), causal=causal)
    np.testing.assert_allclose(bench._runner("torch", causal)(q, k, v), truth, rtol=1e-4, atol=1e-5)


def test_emulated_avx2_compiles_the_kernel_for_haswell_without_avx512_in_its_own_cache(
    bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    from numba.core import config

    from attention_ref.kernel import _vector_bytes

    shell = {"OPENBLAS_L2_SIZE": "1048576", "NUMBA_CACHE_DIR": "/somewhere", "PATH": "/bin"}
    env = bench.emulated(shell, "avx2")
    assert env["PATH"] == "/bin" and "OPENBLAS_L2_SIZE" not in env
    assert env["NUMBA_CACHE_DIR"] != shell["NUMBA_CACHE_DIR"]  # never the native kernel's cache
    assert env["ATEN_CPU_CAPABILITY"] == "avx2" and env["OPENBLAS_CORETYPE"] == "Haswell"
    # What Numba reads from these two variables gives the kernel AVX2's 32-byte vectors.
    monkeypatch.setattr(config, "CPU_NAME", env["NUMBA_CPU_NAME"], raising=False)
    monkeypatch.setattr(config, "CPU_FEATURES", env["NUMBA_CPU_FEATURES"], raising=False)
    assert _vector_bytes() == 32
    assert bench.emulated(shell, None) == shell


@pytest.mark.slow  # a real process, as `attnquiz bench` starts it
@pytest.mark.parametrize(
    "option", [["--rounds", "0"], ["--rounds", "-1"], ["--seconds", "-5"], ["--seconds", "nan"]]
)
def test_a_count_or_budget_that_cannot_be_timed_is_refused_before_any_timing(
    option: list[str],
) -> None:
    # `--rounds -1` ran every compile and case, then ended in a traceback (IndexError).
    import subprocess

    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", *option],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "measured" not in done.stdout
    assert option[0] in done.stderr.splitlines()[-1]
