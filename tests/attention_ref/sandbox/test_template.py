"""The template process every sandbox of a grading thread is forked from: what it holds, and
that nothing about it can hold or hurt the grader (a pytest-xdist worker, in the test run)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

import attention_ref.sandbox.template as template_module
from attention_ref.sandbox import Sandbox
from attention_ref.sandbox.isolation import others_can_enter
from attention_ref.sandbox.processes import processes_of_uid

from .conftest import BENIGN, LIMITS, inputs, needs_root

# A sandbox's end that takes this long has hung; a bound this loose is no timing assertion.
HUNG = 120.0


def _status_field(pid: int, key: str) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == key:
            return value.strip()
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def test_the_template_holds_nothing_of_the_graders_and_runs_alone() -> None:
    # Its descriptors: /dev/null for 0-2 and its own socket; never the grader's pipes (a
    # pytest-xdist worker talks to its controller over its inherited standard streams).
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as box:
        assert box._process is not None
        template = box._process.template
        fds = {
            int(fd): os.readlink(f"/proc/{template}/fd/{fd}")
            for fd in os.listdir(f"/proc/{template}/fd")
        }
        # One thread, so forking it copies no lock another thread holds.
        assert _status_field(template, "Threads") == "1"
        # Its own session and group: a kill by its group id reaches no process of the grader.
        assert os.getsid(template) == template and os.getpgid(template) == template
        assert os.getpgid(box._process.pid) == box._process.pid  # the sandbox leads its own
    assert {fd: target for fd, target in fds.items() if fd <= 2} == dict.fromkeys(
        (0, 1, 2), os.devnull
    )
    others = [target for fd, target in fds.items() if fd > 2]
    sockets = [target for target in others if target.startswith("socket:")]
    # Besides its socket, only the import folders it opened for the sandboxes' private uid:
    # folders that uid could not enter (Python under a 0700 home).
    folders = [target for target in others if not target.startswith("socket:")]
    assert len(sockets) == 1, fds
    assert all(os.path.isdir(f) and not others_can_enter(f) for f in folders), fds


@needs_root
@pytest.mark.slow  # waits for the template's answer to time out
def test_a_template_that_stops_answering_cannot_hold_the_grader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were any wait for the template unbounded, a stalled template would hang the grader
    # (in a test run, until pytest-timeout's thread ends the whole xdist worker with
    # os._exit, which the controller reports as "node down: Not properly terminated").
    monkeypatch.setattr(template_module, "ANSWER_SECONDS", 1.0)
    seen: dict[str, object] = {}

    def grade() -> None:
        box = Sandbox(BENIGN / "correct.py", "attention", LIMITS)
        with box:
            assert box.call(*inputs()).status == "ok"
            assert box._process is not None
            seen["template"] = box._process.template
            seen["uid"] = box.uid
            os.kill(box._process.template, signal.SIGSTOP)
        seen["ended"] = True

    thread = threading.Thread(target=grade, daemon=True)
    thread.start()
    thread.join(HUNG)
    template = seen.get("template")
    try:
        assert seen.get("ended"), "ending the sandbox hung on a stalled template"
        assert isinstance(template, int) and _gone(template)  # ended, not asked again
        uid = seen["uid"]
        assert isinstance(uid, int) and processes_of_uid(uid) == []
    finally:
        if isinstance(template, int) and not _gone(template):
            os.kill(template, signal.SIGKILL)


def test_a_forked_copy_of_the_grader_leaves_the_template_alone() -> None:
    # A copy made by fork() (without exec) inherits the Template object; it must neither use
    # the parent's template (their requests would cross) nor kill it.
    with Sandbox(BENIGN / "correct.py", "attention", LIMITS) as box:
        assert box._process is not None
        owner = box._process._owner
    parents_end = owner._control.dup()  # the grader's own end, which a fork leaves open
    try:
        owner._owner_pid = os.getpid() + 1  # as seen from a copy: made by another process
        assert not owner.alive()
        owner.close()  # what the copy does with it, at its end or when it wants a template
        assert owner.process.poll() is None  # the grader's template still runs
    finally:
        parents_end.close()
        owner._owner_pid = os.getpid()
        owner.close()
    assert owner.process.poll() is not None
