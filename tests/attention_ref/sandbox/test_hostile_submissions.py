"""Hostile submissions: each is stopped, reported with the right status, and leaves nothing.

Every test runs the file through a fresh sandbox with 2 s per call (1 s for code that spins)
and checks that the call returned within that bound (plus a margin for killing), that no
process of the sandbox's uid is left and that its temporary folder is gone.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from attention_ref.sandbox import Limits, Sandbox
from attention_ref.sandbox.processes import processes_of_uid

from .conftest import (
    HOSTILE,
    LIMITS,
    MARGIN,
    Outside,
    expected,
    inputs,
    needs_root,
    run_submission,
    with_params,
)

# Each test runs a hostile submission in a real sandbox to its limit.
pytestmark = pytest.mark.slow

BOUND = LIMITS.seconds_per_call + MARGIN
# Code that spins burns its whole time limit: a shorter one (the limit is what is tested).
SPIN = replace(LIMITS, seconds_per_call=1.0)


def test_an_infinite_loop_times_out_within_the_limit() -> None:
    outcome = run_submission(HOSTILE / "infinite_loop.py", limits=SPIN)
    (result,) = outcome.results
    assert result.status == "timeout"
    assert result.error == "took longer than 1 s (wall clock)"
    assert SPIN.seconds_per_call <= outcome.elapsed[0] < SPIN.seconds_per_call + MARGIN
    assert outcome.workdir_gone


def test_ignoring_sigterm_does_not_help_and_the_sandbox_stays_dead() -> None:
    outcome = run_submission(HOSTILE / "ignores_sigterm.py", calls=2, limits=SPIN)
    first, second = outcome.results
    assert first.status == "timeout"
    assert outcome.elapsed[0] < SPIN.seconds_per_call + MARGIN
    # Dead after a timeout: the second call runs nothing (no seconds measured) and answers with
    # the same status, without waiting out a second time limit (not a tight wall-clock bound:
    # the machine is shared and noisy).
    assert second.status == "timeout" and second.seconds is None
    assert outcome.elapsed[1] < SPIN.seconds_per_call


def test_death_by_sigxcpu_counts_as_a_timeout(tmp_path: Path) -> None:
    # What the kernel sends when the per-call CPU limit runs out; raised by hand here so the
    # test does not burn a whole CPU budget.
    source = tmp_path / "cpu.py"
    source.write_text(
        "import os, signal\n\ndef attention(Q, K, V):\n    os.kill(os.getpid(), signal.SIGXCPU)\n"
    )
    outcome = run_submission(source)
    (result,) = outcome.results
    assert result.status == "timeout"
    assert result.error == "used more than its CPU time (2 s) during the call"


def test_a_memory_hog_is_reported_as_memory() -> None:
    outcome = run_submission(HOSTILE / "memory_hog.py", limits=Limits(memory_bytes=512 * 2**20))
    (result,) = outcome.results
    assert result.status == "memory"
    assert result.error is not None and result.error.startswith("MemoryError")
    assert "(line 7)" in result.error
    assert outcome.elapsed[0] < BOUND


@needs_root
def test_a_fork_storm_is_stopped_by_the_process_bound() -> None:
    outcome = run_submission(HOSTILE / "fork_storm.py")
    (result,) = outcome.results
    assert result.status == "error"
    assert result.error is not None
    assert result.error.startswith("RuntimeError: started ")
    started = int(result.error.split()[2])
    # The worker itself is one of the 8 tasks its uid may have.
    assert started <= LIMITS.max_processes - 1
    assert "Resource temporarily unavailable" in result.error
    assert outcome.elapsed[0] < BOUND


def test_a_segfault_is_a_crash_named_by_its_signal() -> None:
    outcome = run_submission(HOSTILE / "segfault.py")
    (result,) = outcome.results
    assert result.status == "crash"
    assert result.error == "killed by SIGSEGV (segmentation fault) during the call"
    assert outcome.elapsed[0] < BOUND


def test_an_output_flood_is_capped_not_failed() -> None:
    outcome = run_submission(HOSTILE / "output_flood.py")
    (result,) = outcome.results
    assert result.status == "ok"
    np.testing.assert_allclose(result.value, expected(*inputs()))
    report = outcome.report
    assert report.stdout_bytes > 100 * 10**6
    assert len(report.stdout_tail.encode()) <= LIMITS.max_output_bytes
    assert report.stdout_tail.endswith("END OF FLOOD\n")
    assert report.stderr_bytes == 300_001
    assert outcome.elapsed[0] < BOUND


def test_sys_exit_at_import_is_an_import_error_with_its_line() -> None:
    outcome = run_submission(HOSTILE / "exit_at_import.py")
    report = outcome.report
    assert report.import_status == "error"
    assert report.import_error == "SystemExit: 3 (line 6)"
    assert not report.function_found
    # What it printed is only output, never a verdict.
    assert '"passed": true' in report.stdout_tail
    (result,) = outcome.results
    assert result.status == "error"
    assert result.error == "the submission did not import: SystemExit: 3 (line 6)"


def test_os_exit_in_the_call_is_an_error_not_a_pass() -> None:
    outcome = run_submission(HOSTILE / "os_exit_in_call.py", calls=2)
    first, second = outcome.results
    assert first.status == "error"
    assert first.error == "the process exited with code 0 during the call"
    assert second.status == "error" and second.error == first.error
    assert "all tests passed" in outcome.report.stdout_tail
    assert outcome.elapsed[0] < BOUND


def test_a_fake_verdict_on_every_fd_changes_nothing() -> None:
    outcome = run_submission(HOSTILE / "fake_verdict.py", calls=2)
    for result in outcome.results:
        # The parent got the real (wrong) outputs, and the channel stayed intact.
        assert result.status == "ok"
        np.testing.assert_array_equal(result.value, np.zeros((6, 3)))
    assert "PASSED" in outcome.report.stdout_tail


def test_patching_numpy_inside_cannot_make_wrong_outputs_pass() -> None:
    outcome = run_submission(HOSTILE / "patches_numpy.py")
    (result,) = outcome.results
    assert result.status == "ok"
    assert not np.allclose(result.value, expected(*inputs()))


def test_vandalism_outside_the_sandbox_fails(outside: Outside, tmp_path: Path) -> None:
    bashrc = outside.home / ".bashrc"
    store = outside.store / "attnquiz.sqlite3"
    params = {
        "targets": [str(bashrc), str(store), str(outside.bystander)],
        "folders": [str(outside.home), str(outside.store), str(outside.bystander.parent)],
    }
    outcome = run_submission(with_params(tmp_path, "vandal.py", params))
    (result,) = outcome.results
    # ok means every attempt failed (it raises if one worked); the fixture compares snapshots.
    assert result.status == "ok", result.error


def test_secrets_outside_the_sandbox_cannot_be_read(outside: Outside, tmp_path: Path) -> None:
    params = {
        "files": [str(outside.secret), str(outside.store / "attnquiz.sqlite3")],
        "folders": [str(outside.home), str(outside.store), str(outside.secret.parent), "/tmp"],
    }
    outcome = run_submission(with_params(tmp_path, "reads_secret.py", params))
    (result,) = outcome.results
    assert result.status == "ok", result.error
    report = outcome.report
    assert "TOP-SECRET" not in report.stdout_tail + report.stderr_tail


def test_no_network_connection_reaches_a_listener_on_the_host(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(0.3)
        port = listener.getsockname()[1]
        outcome = run_submission(with_params(tmp_path, "network.py", {"port": port}))
        with pytest.raises(TimeoutError):
            listener.accept()
    (result,) = outcome.results
    assert result.status == "ok", result.error
    assert "connect 127.0.0.1:" in outcome.report.stdout_tail


def _sleepers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == b"sleep\x00987.654\x00":
                found.append(int(entry.name))
    return found


@needs_root
def test_background_processes_are_gone_after_grading() -> None:
    seen_during: dict[str, list[int]] = {}

    def look(box: Sandbox) -> None:
        assert box.uid is not None
        seen_during["uid"] = processes_of_uid(box.uid)
        seen_during["sleep"] = _sleepers()

    outcome = run_submission(HOSTILE / "background_process.py", during=look)
    (result,) = outcome.results
    assert result.status == "ok", result.error
    # They really ran past the call: the worker, its init, the daemon and the sleep...
    assert len(seen_during["uid"]) >= 3
    assert len(seen_during["sleep"]) == 1
    # ...and are gone now (run_submission already checked the uid is empty).
    assert _sleepers() == []


def test_a_forged_reply_is_at_worst_a_wrong_answer_then_the_channel_is_distrusted() -> None:
    outcome = run_submission(HOSTILE / "channel_forger.py", calls=2)
    first, second = outcome.results
    if first.status == "ok":
        # The forger chose this call's outputs (0.5 everywhere): a wrong answer, nothing more.
        np.testing.assert_array_equal(first.value, np.full((6, 3), 0.5))
        assert second.status == "error"
        assert second.error is not None and "interfered with the sandbox's channel" in second.error
    else:
        assert first.status == "error"
        assert first.error is not None and "interfered" in first.error
