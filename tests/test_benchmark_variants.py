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
