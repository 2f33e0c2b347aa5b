"""`attnquiz lab scaling` run as a real command: exit codes, the JSON, determinism, 80 columns."""

from __future__ import annotations

import json
import math

import pytest
from rich.cells import cell_len

SWEEP = {4, 16, 64, 256, 1024}


def lab_json(run, *args: str) -> dict:
    result = run("lab", "scaling", "--json", *args)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)  # the whole of stdout is one JSON document


def test_the_lab_draws_everything_within_80_columns(run) -> None:
    result = run("lab", "scaling", "--tokens", "16", "--d-k", "256")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    assert "\x1b" not in result.stdout  # NO_COLOR, and a pipe
    text = result.stdout
    for part in ("softmax(Q Kᵀ / √d_k)", "no scale", "causal mask", "nats", "std S/√d_k"):
        assert part in text
    # Sixteen rows in each of the three maps.
    assert sum(line.startswith("q16 ") for line in lines) == 3


def test_json_holds_every_number_of_the_lab(run) -> None:
    data = lab_json(run, "--d-k", "100", "--tokens", "6", "--seed", "4")
    assert (data["lab"], data["d_k"], data["tokens"], data["seed"]) == ("scaling", 100, 6, 4)
    assert data["entropy_unit"] == "nats"
    assert data["uniform_entropy"] == pytest.approx(math.log(6), abs=1e-4)
    for name in ("scaled", "unscaled", "causal"):
        run_ = data[name]
        assert set(run_) == {"weights", "row_entropy", "row_max", "score_std"}
        assert len(run_["weights"]) == 6 and all(len(row) == 6 for row in run_["weights"])
        for row, peak, entropy in zip(
            run_["weights"], run_["row_max"], run_["row_entropy"], strict=True
        ):
            assert sum(row) == pytest.approx(1, abs=1e-3)
            assert peak == pytest.approx(max(row), abs=1e-4)
            assert 0 <= entropy <= math.log(6) + 1e-4
    causal = data["causal"]["weights"]
    assert all(causal[i][j] == 0 for i in range(6) for j in range(i + 1, 6))
    assert [row["d_k"] for row in data["sweep"]] == sorted(SWEEP | {100})
    for row in data["sweep"]:
        assert row["sqrt_d_k"] == pytest.approx(math.sqrt(row["d_k"]), abs=1e-4)
        assert row["std_unscaled"] == pytest.approx(row["sqrt_d_k"], rel=0.1)
        assert row["std_scaled"] == pytest.approx(1, abs=0.1)
        assert row["samples"] >= 16 * 36


def test_the_takeaway_quotes_the_numbers(run) -> None:
    data = lab_json(run, "--d-k", "1024")
    row = next(r for r in data["sweep"] if r["d_k"] == 1024)
    assert f"{row['mean_max_unscaled']:.2f}" in data["takeaway"]
    assert f"{row['mean_max_scaled']:.2f}" in data["takeaway"]
    assert "one-hot" in data["takeaway"]


def test_same_seed_same_output_other_seed_other_output(run) -> None:
    first = run("lab", "scaling", "--json", "--seed", "3")
    second = run("lab", "scaling", "--json", "--seed", "3")
    other = run("lab", "scaling", "--json", "--seed", "4")
    assert first.stdout == second.stdout
    assert json.loads(first.stdout)["unscaled"] != json.loads(other.stdout)["unscaled"]
    assert run("lab", "scaling").stdout == run("lab", "scaling").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--d-k", "1"],
        ["--d-k", "5000"],
        ["--tokens", "1"],
        ["--tokens", "17"],
        ["--seed", "-1"],
        ["--d-k", "many"],
        ["--bogus"],
    ],
)
def test_bad_options_exit_2_with_one_line(run, args: list[str]) -> None:
    result = run("lab", "scaling", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("attnquiz: error:")
    assert "Traceback" not in result.stderr


def test_out_of_range_sizes_called_directly_are_usage_errors() -> None:
    from engine.commands.lab import run_lab_scaling
    from engine.errors import UsageError

    with pytest.raises(UsageError, match="--tokens must be between 2 and 16"):
        run_lab_scaling(64, 40, 0, as_json=True)
    with pytest.raises(UsageError, match="--seed"):
        run_lab_scaling(64, 8, -2, as_json=True)
