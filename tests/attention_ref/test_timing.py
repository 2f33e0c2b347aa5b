"""Timing reports figures and ratios; the peak is measured once per machine and cached."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_ref import machine as machine_module
from attention_ref.machine import Machine, this_machine
from attention_ref.timing import roofline, time_submission

SUBMISSIONS = Path(__file__).parent / "submissions"
FAKE = Machine(
    sgemm_gflops=400.0,
    bandwidth_gbs=20.0,
    blas="openblas",
    core_type="Haswell",
    threads=2,
    cpu="test cpu",
)


@pytest.fixture
def fake_machine(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def measure() -> Machine:
        calls.append(1)
        return FAKE

    monkeypatch.setattr(machine_module, "measure", measure)
    return calls


def test_the_peak_is_measured_once_and_then_read_from_the_cache(tmp_path, fake_machine) -> None:
    assert this_machine(tmp_path) == FAKE
    assert this_machine(tmp_path) == FAKE
    assert len(fake_machine) == 1
    (tmp_path / "machine.json").write_text("{not json")
    assert this_machine(tmp_path) == FAKE  # a damaged cache is measured again
    assert len(fake_machine) == 2


def test_a_timing_report_has_figures_and_ratios_for_each_size(
    tmp_path, monkeypatch, fake_machine
) -> None:
    monkeypatch.setattr("attention_ref.timing.this_machine", lambda: FAKE)
    report = time_submission(
        SUBMISSIONS / "good" / "five_lines.py", "attention", "attention", ladder=(32, 64)
    )
    assert [row["T"] for row in report["sizes"]] == [32, 64]
    for row in report["sizes"]:
        assert row["samples"] >= 1 and row["median_s"] > 0 and row["gflops"] > 0
        assert row["vs_numpy"] > 0 and row["share_of_peak"] > 0
    assert report["peak_gflops"] == 400.0
    assert "memory-bound" in report["roofline"] or "compute-bound" in report["roofline"]


def test_roofline_compares_intensity_with_the_machine_balance() -> None:
    # balance 400/20 = 20 FLOP/byte; at T = 2048, d = 64 storing the scores gives ~15.5
    assert "memory-bound" in roofline(2048, FAKE)
    fast_memory = Machine(400.0, 400.0, "b", "c", 1, "cpu")
    assert "compute-bound" in roofline(2048, fast_memory)
