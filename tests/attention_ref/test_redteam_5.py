"""Red team, fifth pass, on timing: the CPU time a figure is checked against must include all
the work the code did, also that of a child process it never waited for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attention_ref.timing import StopLadder
from tests.attention_ref.test_redteam_4 import _sample

# On "go" it forks a child that computes for 0.3 s of its own CPU time and exits; the parent
# never waits for it, so the child stays a zombie: not a live process, and its CPU time is in
# no live process's counters (a parent has it only once it reaps the child).
ZOMBIE_MAKER = """
import os, sys, time
print("ready", flush=True)
if sys.stdin.readline().strip() == "go":
    child = os.fork()
    if child == 0:
        start = time.process_time()
        while time.process_time() - start < 0.3:
            pass
        os._exit(0)
    while open(f"/proc/{child}/stat").read().rpartition(")")[2].split()[0] != "Z":
        time.sleep(0.01)
print("done", flush=True)
sys.stdin.readline()
"""


def test_work_left_in_a_zombie_child_stops_the_ladder() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", ZOMBIE_MAKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as maker:
        assert maker.stdout is not None
        try:
            assert maker.stdout.readline().strip() == "ready"
            with pytest.raises(StopLadder, match="more CPU time than its calls took"):
                _sample(maker)
        finally:
            maker.kill()


def test_a_file_swapped_for_a_pipe_after_its_check_is_refused_without_waiting(
    tmp_path, monkeypatch
) -> None:
    # read_at_most checked the path, then opened it: a pipe put there in between (a watched
    # file replaced as it is graded) made the open wait for a writer that never came.
    import os
    import threading

    from attention_ref import bounded_read

    regular = tmp_path / "mine.py"
    regular.write_text("x = 1\n")
    pipe = tmp_path / "swapped.py"
    os.mkfifo(pipe)
    checked, real_stat = os.stat(regular), os.stat

    def stat_before_the_swap(path, *args, **kwargs):  # the pipe was a regular file then
        return checked if str(path) == str(pipe) else real_stat(path, *args, **kwargs)

    monkeypatch.setattr(bounded_read.os, "stat", stat_before_the_swap)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(bounded_read.read_at_most(pipe, 1000))
        except OSError as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)  # a safety net against the hang, not a timing assertion
    if reader.is_alive():  # free the blocked open before failing
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
        pytest.fail("the open waited for a writer")
    assert isinstance(outcome[0], OSError) and "not a regular file" in str(outcome[0])
