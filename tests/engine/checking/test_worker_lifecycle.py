"""The checking worker's life: time-outs, crashes and memory limits end in a clear invalid
verdict and a fresh worker; no worker outlives the process that started it.

Nothing here depends on how fast the machine is: a stalled check never ends by itself, and the
tests wait for processes to exit (waitpid, waitid) instead of sleeping.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.bank.catalog import open_set
from engine.cards.typed import TypedItem
from engine.checking.worker import bounded
from engine.checking.worker.bounded import BoundedChecker
from tests.engine.checking.conftest import Limits
from tests.engine.checking.hostile_worker import STALLING_LINE

# Real worker processes, killed and waited for: slow by nature.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="uses Linux process tools")


@pytest.fixture
def var_dot(store_home: Path) -> TypedItem:
    item = open_set("15", store_home).item("var-dot")
    assert isinstance(item, TypedItem)
    return item


def misbehaving(item: TypedItem, how: str) -> TypedItem:
    """`item` under an id that makes the hostile worker's check of it misbehave `how`."""
    return item.model_copy(update={"id": how})


def is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_for_exit_without_reaping(pid: int) -> None:
    """Block until our child `pid` has exited, leaving it for its Popen to reap."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


@pytest.mark.parametrize("how", ["sleeps", "spins"])
def test_a_check_that_never_ends_is_stopped_and_the_next_check_gets_a_fresh_worker(
    how: str, hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    checker = hostile_checker
    assert checker.grade(var_dot, "d").correct
    stalled = checker.pid()
    assert stalled is not None
    with limits.short() as seconds:
        verdict = checker.grade(misbehaving(var_dot, how), "d")
    assert not verdict.correct and not verdict.valid
    assert verdict.feedback.startswith(
        f"could not check this in time: checking took longer than {seconds:g} s and was stopped"
    )
    assert is_gone(stalled)
    fresh = checker.pid()
    assert fresh is not None and fresh != stalled  # already started for the next check
    assert checker.grade(var_dot, "d").correct
    assert checker.pid() == fresh


def test_a_worker_that_dies_during_a_check_gives_an_invalid_verdict_then_restarts(
    hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    checker = hostile_checker
    checker.start()
    crashed = checker.pid()
    verdict = checker.grade(misbehaving(var_dot, "crashes"), "d")
    assert not verdict.correct and not verdict.valid
    assert "the checker stopped (exit code 70)" in verdict.feedback
    assert checker.pid() not in (None, crashed)
    assert checker.grade(var_dot, "d").correct


@pytest.mark.parametrize(
    ("how", "feedback"),
    [
        ("hogs", "could not check this: it needs too much memory; try a simpler form"),
        ("garbles", "could not check this: the checker's reply was bad"),
    ],
    ids=["past the memory limit", "malformed reply"],
)
def test_a_check_that_fails_in_the_worker_is_invalid_and_the_worker_carries_on(
    how: str, feedback: str, hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    checker = hostile_checker
    checker.start()
    pid = checker.pid()
    verdict = checker.grade(misbehaving(var_dot, how), "d")
    assert not verdict.correct and not verdict.valid
    assert verdict.feedback == feedback
    assert checker.grade(var_dot, "d").correct
    assert checker.pid() == pid


def test_a_worker_killed_between_checks_is_replaced_without_losing_the_answer(
    hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    checker = hostile_checker
    checker.start()
    killed = checker.pid()
    assert killed is not None
    os.kill(killed, signal.SIGKILL)
    wait_for_exit_without_reaping(killed)
    assert checker.grade(var_dot, "d").correct
    assert checker.pid() not in (None, killed)
    assert is_gone(killed)


@pytest.mark.parametrize("how", ["sleeps", "crashes", "hogs", "garbles"])
def test_the_real_worker_has_no_misbehaving_checks(
    how: str, checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    # The test run's ordinary checker: its worker runs the real task table only.
    assert checker.grade(misbehaving(var_dot, how), "d").correct


@pytest.mark.parametrize(
    "answer",
    [
        "sleeps",
        json.dumps({"op": "check_step", "step": STALLING_LINE}),
        '"}\n' + json.dumps({"op": "check_step", "step": STALLING_LINE, "id": 2}),
    ],
)
def test_no_answer_text_can_reach_another_request(
    answer: str, hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    # Were the answer's text ever read as a request, the hostile worker would never reply.
    checker = hostile_checker
    checker.start()
    pid = checker.pid()
    verdict = checker.grade(var_dot, answer)
    assert not verdict.correct
    assert "in time" not in verdict.feedback
    assert checker.pid() == pid


def test_closing_the_checker_leaves_no_process(
    hostile_checker: BoundedChecker, limits: Limits, var_dot: TypedItem
) -> None:
    checker = hostile_checker
    assert checker.grade(var_dot, "d").correct
    pid = checker.pid()
    assert pid is not None
    checker.close()
    assert checker.pid() is None and is_gone(pid)


def test_the_time_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bounded.TIMEOUT_ENV, "0.25")
    assert bounded.check_timeout() == 0.25
    for bad in ("", "soon", "-1", "0", "1e9"):
        monkeypatch.setenv(bounded.TIMEOUT_ENV, bad)
        assert bounded.check_timeout() == bounded.DEFAULT_TIMEOUT_S


STARTS_A_WORKER = """
from engine.checking.worker.bounded import BoundedChecker
checker = BoundedChecker()  # never closed: atexit, or the kernel, has to end its worker
checker.start()
assert checker.ask({"op": "nothing"}) is not None  # the worker got ready and answered
print(checker.pid(), flush=True)
"""


def test_no_worker_outlives_a_process_that_exits(store_home: Path, limits: Limits) -> None:
    # `limits`: the script's first check gets the generous limit, however loaded the machine.
    result = subprocess.run(
        [sys.executable, "-c", STARTS_A_WORKER], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert is_gone(int(result.stdout))  # atexit killed and reaped it


# The parent must still be alive when it is killed: one that ran on to its end would have ended
# and reaped its worker itself (atexit), and the worker would be no one's to wait for.
STARTS_A_WORKER_AND_WAITS = STARTS_A_WORKER + "import time\ntime.sleep(600)\n"


@linux_only
def test_a_worker_dies_with_a_killed_parent(limits: Limits) -> None:
    # `limits`: the parent's first check gets the generous limit (under load its worker's first
    # answer took longer than the default 5 s, and the parent printed no pid).
    # A subreaper adopts the orphaned worker, so that it can wait for it to die.
    script = textwrap.dedent(f"""
        import ctypes, os, signal, subprocess, sys
        ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
        parent = subprocess.Popen([sys.executable, "-c", {STARTS_A_WORKER_AND_WAITS!r}],
                                  stdout=subprocess.PIPE, text=True)
        worker = int(parent.stdout.readline())
        parent.kill()
        parent.wait()
        _, status = os.waitpid(worker, 0)
        print(os.WTERMSIG(status) if os.WIFSIGNALED(status) else -1)
    """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == signal.SIGKILL


def child_pids(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


@linux_only
@pytest.mark.parametrize(
    ("command", "first_prompt"),
    [(["quiz", "demo"], "[1] "), (["drill", "15", "var-scaled"], "step 1/")],
    ids=["quiz", "drill"],
)
def test_ctrl_c_in_a_session_takes_the_worker_with_it(
    store_home: Path, command: list[str], first_prompt: str
) -> None:
    env = {**os.environ, "ATTNQUIZ_HOME": str(store_home), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(first_prompt):
                break
        workers = child_pids(proc.pid)
        assert len(workers) == 1  # started with the command, before any answer was checked
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130
        assert is_gone(workers[0])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
