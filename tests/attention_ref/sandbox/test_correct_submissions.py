"""Well-behaved and ordinarily-wrong submissions: outputs arrive intact, errors name their line."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from attention_ref.reference import attention as reference_attention
from attention_ref.reference import causal_mask
from attention_ref.sandbox import Limits, Sandbox
from attention_ref.sandbox.results import NotAnArray, as_returned

from .conftest import BENIGN, LIMITS, MARGIN, assert_nothing_left, inputs, needs_root

# Real sandboxes: a confined process per test.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def correct() -> Iterator[Sandbox]:
    """One sandbox for the correct submission, shared by the tests that only call it."""
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as box:
        yield box
    assert_nothing_left(box)


def test_a_correct_submission_returns_the_reference_output(correct: Sandbox) -> None:
    q, k, v = inputs()
    result = correct.call(q, k, v)
    assert result.status == "ok" and result.error is None
    np.testing.assert_allclose(result.value, reference_attention(q, k, v), rtol=1e-12)


def test_large_arrays_travel_repeatedly_and_within_the_bound(correct: Sandbox) -> None:
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, k, v = (rng.normal(size=(2048, 64)) for _ in range(3))
        start = time.monotonic()
        result = correct.call(q, k, v)
        elapsed = time.monotonic() - start
        assert result.status == "ok", result.error
        assert result.value.shape == (2048, 64) and result.value.dtype == np.float64
        np.testing.assert_allclose(result.value, reference_attention(q, k, v), atol=1e-12)
        assert result.seconds is not None and 0 < result.seconds <= elapsed
        assert elapsed < LIMITS.seconds_per_call + MARGIN


def test_float32_and_keyword_masks_pass_through(correct: Sandbox) -> None:
    q, k, v = (a.astype(np.float32) for a in inputs(t_q=5, t_k=5))
    mask = causal_mask(5, 5, dtype=np.float32)
    result = correct.call(q, k, v, mask=mask)
    assert result.status == "ok", result.error
    assert result.value.dtype == np.float32
    np.testing.assert_allclose(result.value, reference_attention(q, k, v, mask=mask), rtol=1e-5)
    unmasked = correct.call(q, k, v, mask=None)
    np.testing.assert_allclose(unmasked.value, reference_attention(q, k, v), rtol=1e-5)


@needs_root
def test_the_report_names_every_layer_of_isolation(correct: Sandbox) -> None:
    report = correct.report()
    assert report.import_status == "ok" and report.import_error is None
    assert report.function_found
    for layer in ("landlock", "network", "user", "processes", "pid namespace", "memory"):
        assert not report.isolation[layer].startswith("unavailable"), report.isolation[layer]
    assert report.isolation["landlock"].startswith("ABI ")
    assert "TCP" in report.isolation["landlock"]
    assert f"uid {correct.uid}" in report.isolation["user"]


def test_standard_modules_still_import_inside_the_sandbox() -> None:
    with Sandbox(BENIGN / "correct.py", "stdlib_still_imports", LIMITS) as box:
        result = box.call(*inputs())
    assert result.status == "ok", result.error
    np.testing.assert_allclose(result.value, [2.0, 0.25, 1 / 3, 1.5])


def test_a_tuple_return_arrives_as_a_tuple_of_arrays_and_scalars() -> None:
    q, k, v = inputs()
    with Sandbox(BENIGN / "returns_tuple.py", "attention", LIMITS) as box:
        result = box.call(q, k, v)
    assert_nothing_left(box)
    assert result.status == "ok", result.error
    output, weights, scale = result.value
    np.testing.assert_allclose(output, reference_attention(q, k, v))
    np.testing.assert_allclose(weights.sum(axis=-1), np.ones(6))
    assert isinstance(scale, np.floating) and scale == pytest.approx(0.5)


@pytest.fixture(scope="module")
def mistakes() -> Iterator[Path]:
    yield BENIGN / "mistakes.py"


def test_an_exception_names_its_type_message_and_line(mistakes: Path) -> None:
    with Sandbox(mistakes, "attention", LIMITS) as box:
        first = box.call(*inputs())
        again = box.call(*inputs())
    assert first.status == "error"
    assert first.error == "ZeroDivisionError: division by zero (line 6)"
    # An exception does not end the sandbox.
    assert again.status == "error" and again.seconds is not None


@pytest.mark.parametrize(
    ("function", "description"),
    [
        ("returns_text", "a list ([['not', 'numbers']])"),
        ("returns_objects", "a dict ({'output': array("),
    ],
)
def test_values_that_are_not_numbers_are_returned_not_raised(
    mistakes: Path, function: str, description: str
) -> None:
    with Sandbox(mistakes, function, LIMITS) as box:
        result = box.call(*inputs())
    assert result.status == "ok" and result.error is None
    assert isinstance(result.value, NotAnArray)
    assert str(result.value).startswith(description)


def test_an_array_like_return_is_converted(mistakes: Path) -> None:
    q, k, v = inputs(t_q=4, t_k=4, d_k=4, d_v=4)
    with Sandbox(mistakes, "returns_list", LIMITS) as box:
        result = box.call(q, k, v)
    assert result.status == "ok"
    np.testing.assert_allclose(as_returned(result.value, (4, 4)), q @ k.T @ v)


def test_a_missing_function_is_an_import_error(mistakes: Path) -> None:
    with Sandbox(mistakes, "scaled_dot_product_attention", LIMITS) as box:
        report = box.report()
        result = box.call(*inputs())
    assert report.import_status == "error" and not report.function_found
    assert report.import_error == "no function named 'scaled_dot_product_attention'"
    assert result.status == "error"


def test_a_syntax_error_is_an_import_error_with_its_line(tmp_path: Path) -> None:
    source = tmp_path / "broken.py"
    source.write_text("import numpy as np\n\n\ndef attention(Q, K, V)\n    return Q\n")
    with Sandbox(source, "attention", LIMITS) as box:
        report = box.report()
    assert report.import_status == "error"
    assert report.import_error == "SyntaxError: expected ':' (line 4)"


def test_an_import_that_never_ends_times_out(tmp_path: Path) -> None:
    source = tmp_path / "slow_import.py"
    source.write_text("while True:\n    pass\n")
    start = time.monotonic()
    with Sandbox(source, "attention", Limits(seconds_per_call=1.0)) as box:
        report = box.report()
        result = box.call(*inputs())
    assert time.monotonic() - start < 1.0 + MARGIN + 2.0  # including start-up
    assert report.import_status == "timeout"
    assert report.import_error == "importing took longer than 1 s"
    assert result.status == "timeout"
    assert_nothing_left(box)
