"""`attnquiz exercises` and `attnquiz submit --exercise`, in-process, plus watch mode for real."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest

from engine.cli import main
from tests.engine.cli.conftest import COMMAND, cli_env

SOLUTION = """import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""

GLOBAL_MAX = SOLUTION.replace("x.max(axis=axis, keepdims=True)", "x.max()")


def attnquiz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_list_names_every_exercise_with_its_signature_and_state(capsys) -> None:
    code, out, _ = attnquiz(capsys, "exercises", "15", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows][:2] == ["stable-softmax", "attention"]
    softmax = rows[0]
    assert softmax["function"] == "softmax" and softmax["signature"] == "softmax(x, axis=-1)"
    assert {r["state"] for r in rows} == {"new"}


def test_the_starter_is_written_once_and_never_overwritten(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = attnquiz(capsys, "exercises", "15", "tiled-attention")
    assert code == 0 and "tiled-attention.py" in out
    starter = (tmp_path / "tiled-attention.py").read_text()
    assert "def tiled_attention(Q, K, V, block=64)" in starter
    (tmp_path / "tiled-attention.py").write_text("my work")
    code, _, err = attnquiz(capsys, "exercises", "15", "tiled-attention")
    assert code == 2 and "already exists" in err
    assert (tmp_path / "tiled-attention.py").read_text() == "my work"


@pytest.mark.skipif(os.geteuid() != 0, reason="a small full filesystem is mounted as root")
@pytest.mark.slow  # mounts a file system
def test_a_starter_that_cannot_be_written_whole_leaves_no_empty_file(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk: one clear line, exit 2, and no empty file that the next run would call
    # "your work" ("already exists: keep working on it").
    full = tmp_path / "full"
    full.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)], check=True)
    try:
        (full / "filler").write_bytes(
            b"\0" * (os.statvfs(full).f_bavail * os.statvfs(full).f_frsize)
        )
        monkeypatch.chdir(full)
        code, _, err = attnquiz(capsys, "exercises", "15", "tiled-attention")
        left = sorted(p.name for p in full.iterdir())
    finally:
        monkeypatch.chdir(tmp_path)
        subprocess.run(["umount", str(full)], check=True)
    assert code == 2, err
    assert err.count("\n") == 1 and "cannot write" in err and "No space left" in err
    assert left == ["filler"]


def test_an_unknown_exercise_is_a_usage_error_naming_the_real_ones(capsys) -> None:
    code, _, err = attnquiz(capsys, "exercises", "15", "flash-attention")
    assert code == 2 and "stable-softmax" in err and "Traceback" not in err
    code, _, err = attnquiz(capsys, "submit", "nothing.py", "--exercise", "flash")
    assert code == 2


def test_hints_come_gentlest_first(capsys) -> None:
    code, out, _ = attnquiz(capsys, "exercises", "15", "stable-softmax", "--hints")
    assert code == 0
    assert out.index("hint 1:") < out.index("hint 2:") < out.index("hint 3:")


def test_submit_grades_a_file_as_the_exercise(capsys, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(SOLUTION)
    bad.write_text(GLOBAL_MAX)
    code, out, _ = attnquiz(
        capsys, "submit", str(good), "--exercise", "stable-softmax", "--json", "--no-time"
    )
    report = json.loads(out)
    assert code == 0 and report["passed"] and report["target"] == "stable-softmax"
    code, out, _ = attnquiz(capsys, "submit", str(bad), "--exercise", "stable-softmax", "--json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "wrong" and report["diagnosis"] == ["global_max"]


def test_a_file_saved_with_a_byte_order_mark_is_graded_as_its_code(capsys, tmp_path: Path) -> None:
    # Some editors (Windows Notepad) begin UTF-8 files with a BOM; Python runs them as they are.
    good = tmp_path / "good.py"
    good.write_bytes(b"\xef\xbb\xbf" + SOLUTION.encode())
    code, out, _ = attnquiz(
        capsys, "submit", str(good), "--exercise", "stable-softmax", "--json", "--no-time"
    )
    report = json.loads(out)
    assert code == 0 and report["passed"], report["message"]


def test_the_readable_report_words_the_mistake_and_shows_the_solution_after_a_pass(
    capsys, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(GLOBAL_MAX)
    code, out, _ = attnquiz(capsys, "submit", str(bad), "--exercise", "stable-softmax")
    assert code == 1 and "one max for the whole array" in " ".join(out.split())
    assert "global_max" not in out  # words, not internal names
    bad.write_text(SOLUTION)
    code, out, _ = attnquiz(capsys, "submit", str(bad), "--exercise", "stable-softmax", "--no-time")
    assert code == 0 and "One way to write it" in out


def _read_until(lines: queue.Queue[str | None], marker: str, limit: float = 180.0) -> str:
    """Output lines up to the one containing `marker`. The bound only guards against a hang
    (the test fails instead of blocking); nothing here asserts a speed."""
    seen: list[str] = []
    deadline = time.monotonic() + limit
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"no {marker!r} in:\n{''.join(seen)}")


def _lines_of(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


@pytest.mark.slow  # a real watching process, grading twice in the sandbox
def test_watch_mode_grades_again_on_a_save_and_stops_at_a_pass(
    store_home: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "stable-softmax.py"
    mine.write_text(GLOBAL_MAX)
    proc = subprocess.Popen(
        [*COMMAND, "submit", str(mine), "--exercise", "stable-softmax", "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(store_home),
    )
    lines = _lines_of(proc)
    try:
        first = _read_until(lines, "watching")
        assert "one max for the whole array" in " ".join(first.split())
        mine.write_text(SOLUTION)
        again = _read_until(lines, "passed every case")
        assert "graded again" in again and "fixed: global max" in again
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def test_a_watched_file_replaced_by_a_pipe_or_a_device_is_not_read(tmp_path: Path) -> None:
    # Watch mode compares each saved version with the last; it read the whole file to do so, so
    # a file replaced by a named pipe blocked the watch for ever, and one replaced by a link to
    # /dev/zero filled the memory. Neither is a version to grade: no signature, nothing read.
    from engine.commands.watch import _signature

    pipe = tmp_path / "pipe.py"
    os.mkfifo(pipe)
    assert _signature(pipe) is None
    endless = tmp_path / "endless.py"
    endless.symlink_to("/dev/zero")
    assert _signature(endless) is None
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION)
    first = _signature(mine)
    assert first is not None
    mine.write_text(GLOBAL_MAX)
    assert _signature(mine) not in (None, first)


ONLY_SMALL = """import numpy as np


def attention(Q, K, V):
    if Q.shape[0] > 300:  # right on the battery's sizes only (the longest has T_q = 200)
        return np.zeros((Q.shape[0], V.shape[1]))
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ V
"""


@pytest.mark.slow  # times the submission in the sandbox at the timing sizes
@pytest.mark.usefixtures("flash_kernel")
def test_a_pass_is_timed_against_the_reference_solution_and_the_kernel(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two sizes, each ending at its minimum of samples: what is tested is that the pass is
    # timed beside the reference and the kernel, not the precision of the figures.
    import attention_ref.exercises.timing as exercise_timing

    monkeypatch.setattr(exercise_timing, "LADDER", (128, 256))
    monkeypatch.setattr(exercise_timing, "SIZE_BUDGET_S", 0.0)
    mine = tmp_path / "attention.py"
    mine.write_text(ONLY_SMALL.replace("if Q.shape[0] > 300:", "if False:"))
    code, out, err = attnquiz(capsys, "submit", str(mine), "--exercise", "attention", "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"]
    timing = report["timing"]
    rows = timing["sizes"]
    assert rows and all(r["vs_reference"] > 0 for r in rows)
    # The kernel is timed beside them, or a note says why it could not be.
    assert all(r["vs_kernel"] is not None for r in rows) or timing["notes"]
    assert "timing T =" in err  # progress is shown while it times


@pytest.mark.slow  # times the submission in the sandbox at the timing sizes
def test_code_right_only_on_the_small_battery_is_caught_at_the_timing_sizes(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import attention_ref.exercises.timing as exercise_timing

    monkeypatch.setattr(exercise_timing, "LADDER", (512,))  # past the battery's longest case
    monkeypatch.setattr(exercise_timing, "SIZE_BUDGET_S", 0.0)
    mine = tmp_path / "attention.py"
    mine.write_text(ONLY_SMALL)
    code, out, _ = attnquiz(capsys, "submit", str(mine), "--exercise", "attention", "--json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "wrong"
    assert "timed output of your code is wrong" in report["message"]
